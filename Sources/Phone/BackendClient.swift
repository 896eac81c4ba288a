import Foundation

/// The phone's only way to its backends, at the boundary where the phone meets the network: a
/// request posted to a backend and its answer, or the phone's error (a refusal stays a
/// refusal, silence is error 70). `HTTPBackendClient` is the live one; tests pass a double.
public protocol BackendClient: Sendable {
    /// POSTs `body` to `baseURL + path` for the phone `phoneId` and reads the answer.
    func post<Response: Decodable>(
        _ baseURL: String, _ path: String, _ body: some Encodable, from phoneId: String
    ) async throws(PhoneError) -> Response

    /// Whether the phone knows, without trying, that it has no network now (as its OS would).
    func isOffline(phoneId: String) -> Bool
}
