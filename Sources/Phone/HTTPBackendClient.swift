import BackendAPI
import Faults
import Foundation
import WireJSON

/// The live `BackendClient`: the wire's HTTP client, with the backend's answers turned into the
/// phone's errors.
struct HTTPBackendClient: BackendClient {
    let wire: WireHTTPClient
    /// Faults set on purpose strike here, where the phone's network would fail.
    let faults: FaultInjector?
    let timeout: Duration
    let sleep: @Sendable (Duration) async throws -> Void

    func post<Response: Decodable>(
        _ baseURL: String, _ path: String, _ body: some Encodable, from phoneId: String
    ) async throws(PhoneError) -> Response {
        let url = baseURL + path
        let bytes: Data
        do { bytes = try WireHTTPClient.encode(body) } catch { throw .serverConnection(error.description) }
        // the session is read off the path later, by the timeline
        var label = WireExchange.Label(from: .phone, to: .backend, phoneId: phoneId)
        do { label.fault = try await strike(phoneId) } catch {
            label.fault = error.message
            wire.recordStruck(url, bytes: bytes, label: label, error: error.message)
            throw error
        }
        let answer: WireHTTPClient.Answer
        do { answer = try await wire.post(url, bytes: bytes, label: label) } catch {
            throw error.timedOut ? .serverTimeout(error.description) : .serverConnection(error.description)
        }
        guard answer.isSuccess else {
            // A redirect is not followed: the phone's signed request goes only where it was sent.
            // A route the server does not have is not a backend's refusal: the URL is wrong.
            var error = PhoneError.serverResponse(
                answer.isRedirect
                    ? "HTTP \(answer.status), a redirect, which the phone does not follow" : "HTTP \(answer.status)")
            if !answer.isRedirect, let body = try? answer.decode(WireErrorBody.self), !Self.routingCodes.contains(body.error.code) {
                error = PhoneError(Self.kind(answer.status), body.error.code, body.error.message, sdkCode: Self.sdkCodes[body.error.code])
            }
            error.httpStatus = answer.status
            error.retryAfter = answer.retryAfter
            throw error
        }
        do { return try answer.decode(Response.self) } catch {
            throw .serverResponse("the answer could not be read: \(WireJSON.describe(error))")
        }
    }

    /// A fault for this phone, or for the whole backend, acts as the network would: no
    /// connection, no answer, an error status, or a late answer (after which the request goes,
    /// and the late answer's fault is returned in words).
    private func strike(_ phoneId: String) async throws(PhoneError) -> String? {
        guard let faults, let fault = faults.strike([.phone(phoneId), .backend], requests: true) else { return nil }
        switch fault {
        case .unreachable:
            throw .serverConnection("connection refused (a fault set on purpose)")
        case .offline:
            throw .serverConnection("the phone has no network (offline, a fault set on purpose)")
        case .hang:
            try? await sleep(timeout)
            throw .serverTimeout("no answer within \(timeout.components.seconds) s (a fault set on purpose)")
        case .status(let code, let retryAfter):
            var error = PhoneError(Self.kind(UInt(code)), "HTTP_\(code)", "the server answered \(code) (a fault set on purpose)")
            error.httpStatus = UInt(code)
            error.retryAfter = retryAfter.map { .seconds($0) }
            throw error
        case .latency(let minimum, let maximum):
            let delay = faults.latency(minimum, maximum)
            try? await sleep(delay)
            return "latency of \(delay) (a fault set on purpose)"
        case .drop, .delay:
            return nil
        }
    }

    func isOffline(phoneId: String) -> Bool { faults?.isOffline(phoneId: phoneId) ?? false }

    static let routingCodes: Set<String> = ["NOT_FOUND", "METHOD_NOT_ALLOWED"]

    /// The backend's refusals that nextAuth gives a number (docs/behaviour.md#error-codes): an
    /// enrolment QR code expired or used (41), an account the server no longer has (48), a token
    /// the server has no session for (64: no server parameters for this request).
    static let sdkCodes = ["ENROL_QR_EXPIRED": 41, "ACCOUNT_NOT_FOUND": 48, "TOKEN_UNKNOWN": 64]

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
