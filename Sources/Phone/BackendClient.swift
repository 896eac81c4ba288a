import BackendAPI
import Foundation

/// The phone's only way to its backend: the wire's HTTP client, with the backend's answers
/// turned into the phone's errors (a refusal stays a refusal, silence is error 70).
struct BackendClient: Sendable {
    let wire: WireHTTPClient

    func post<Response: Decodable>(_ baseURL: String, _ path: String, _ body: some Encodable) async throws(PhoneError) -> Response {
        let answer: WireHTTPClient.Answer
        do { answer = try await wire.post(baseURL + path, json: body) } catch { throw .serverConnection(error.description) }
        guard answer.isSuccess else {
            // A route the server does not have is not a backend's refusal: the URL is wrong.
            if let body = try? answer.decode(WireErrorBody.self), !Self.routingCodes.contains(body.error.code) {
                throw PhoneError(Self.kind(answer.status), body.error.code, body.error.message)
            }
            throw .serverResponse("HTTP \(answer.status)")
        }
        do { return try answer.decode(Response.self) } catch {
            throw .serverResponse("the answer could not be read: \(error)")
        }
    }

    static let routingCodes: Set<String> = ["NOT_FOUND", "METHOD_NOT_ALLOWED"]

    private static func kind(_ status: UInt) -> PhoneError.Kind {
        switch status {
        case 400, 422: .badRequest
        case 401, 403: .forbidden
        case 404: .notFound
        case 409: .conflict
        case 410: .gone
        default: .badGateway
        }
    }
}
