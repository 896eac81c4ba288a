import BackendAPI
import Foundation
import Phone
import Synchronization
import Testing
import WireJSON

/// The phone's network in a test: each request the phone makes must have been expected, and is
/// answered by the test from the request as the wire carries it (JSON, both ways). A request no
/// one expected fails the test and reaches the phone as a refusal, so nothing passes quietly.
final class ScriptedBackend: BackendClient {
    /// A request the phone made: where it went and its body as the wire carried it.
    struct Sent: Sendable {
        let url: String
        let phoneId: String
        let body: Data

        func decode<Request: Decodable>(_ type: Request.Type) throws -> Request {
            try WireJSON.decoder().decode(Request.self, from: body)
        }
    }

    private struct Expected: Sendable {
        let url: String
        let answer: @Sendable (Data) throws -> Data
    }

    private struct Script {
        var expected: [Expected] = []
        var sent: [Sent] = []
        var offline: Set<String> = []
    }

    private let script = Mutex(Script())

    /// Every request the phone made, in order.
    var sent: [Sent] { script.withLock { $0.sent } }

    /// The URLs of expected requests the phone has not made yet.
    var unanswered: [String] { script.withLock { $0.expected.map(\.url) } }

    /// The next request to `url` is answered by `answer`, given the request read as `Request`.
    func expect<Request: Decodable & Sendable, Response: Encodable & Sendable>(
        _ url: String, _ request: Request.Type, answer: @escaping @Sendable (Request) throws -> Response
    ) {
        let expected = Expected(url: url) { body in
            try WireJSON.data(answer(try WireJSON.decoder().decode(Request.self, from: body)))
        }
        script.withLock { $0.expected.append(expected) }
    }

    /// The next request to `url` fails with `error`: a server that cannot be reached, or a refusal.
    func expect(_ url: String, failingWith error: PhoneError) {
        script.withLock { $0.expected.append(Expected(url: url) { _ in throw error }) }
    }

    /// The phone's OS reports no network from now on.
    func takeOffline(_ phoneId: String) {
        script.withLock { _ = $0.offline.insert(phoneId) }
    }

    func isOffline(phoneId: String) -> Bool { script.withLock { $0.offline.contains(phoneId) } }

    func post<Response: Decodable>(
        _ baseURL: String, _ path: String, _ body: some Encodable, from phoneId: String
    ) async throws(PhoneError) -> Response {
        let url = baseURL + path
        let bytes: Data
        do { bytes = try WireJSON.data(body) } catch { throw unusable("the phone's request to \(url) could not be encoded: \(error)") }
        let next = script.withLock { script -> Expected? in
            script.sent.append(Sent(url: url, phoneId: phoneId, body: bytes))
            return script.expected.firstIndex { $0.url == url }.map { script.expected.remove(at: $0) }
        }
        guard let next else { throw unusable("the phone posted to \(url), which the test did not expect") }
        do { return try WireJSON.decoder().decode(Response.self, from: try next.answer(bytes)) } catch let error as PhoneError {
            throw error
        } catch {
            throw unusable("the exchange with \(url) did not fit the phone's types: \(error)")
        }
    }

    /// A script that does not fit what the phone did fails the test where it happened.
    private func unusable(_ why: String) -> PhoneError {
        Issue.record(Comment(rawValue: why))
        return PhoneError(.badGateway, "SCRIPT_MISMATCH", why)
    }
}
