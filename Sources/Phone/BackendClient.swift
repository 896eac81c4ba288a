import AsyncHTTPClient
import BackendAPI
import Foundation
import NIOCore
import NIOFoundationCompat

/// The phone's only way to its backend: real HTTP, even when the backend is this process.
/// That keeps "server unreachable" (error 70) and the backend's refusals real.
struct BackendClient: Sendable {
    let http: HTTPClient
    let timeout: TimeAmount

    func post<Response: Decodable>(_ baseURL: String, _ path: String, _ body: some Encodable) async throws(PhoneError) -> Response {
        let bytes: Data
        do { bytes = try WireJSON.encoder().encode(body) } catch { throw .serverResponse("request could not be encoded: \(error)") }
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(data: bytes))

        let status: UInt
        let payload: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: timeout)
            status = response.status.code
            payload = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw .serverConnection(String(describing: error))
        }
        guard (200..<300).contains(status) else {
            if let body = try? WireJSON.decoder().decode(WireErrorBody.self, from: payload) {
                throw PhoneError(Self.kind(status), body.error.code, body.error.message)
            }
            throw .serverResponse("HTTP \(status)")
        }
        do { return try WireJSON.decoder().decode(Response.self, from: payload) } catch {
            throw .serverResponse("the answer could not be read: \(error)")
        }
    }

    /// Keeps the backend's meaning: its refusals stay refusals; its failures are the server's.
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
