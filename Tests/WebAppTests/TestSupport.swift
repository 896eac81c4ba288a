import AsyncHTTPClient
import AuthFlow
import Backend
import BackendAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import Logging
import NIOCore
import OutOfBand
import Phone
import PushService
import ServiceLifecycle
import SodiumKit
import Synchronization
import TestDoubles
import Testing
import WebApp
import WireJSON

/// An app with everything in memory and the fast PIN key derivation, unless told otherwise.
func testConfiguration(dataDirectory: String? = nil) -> AppConfiguration {
    var configuration = AppConfiguration()
    configuration.port = 0
    configuration.dataDirectory = dataDirectory
    configuration.pinDerivation = .fast
    return configuration
}

struct HTTPAnswer {
    let status: HTTPResponse.Status
    let body: Data
    var headers: HTTPFields = [:]

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try WireJSON.decoder().decode(T.self, from: body)
    }

    var errorCode: String? { (try? decode(WireErrorBody.self))?.error.code }
}

extension TestClientProtocol {
    /// A JSON request as a script would send it.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: [String: Any]? = nil,
        headers: HTTPFields = [.contentType: "application/json"]
    ) async throws -> HTTPAnswer {
        let body = try json.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) }
        return try await execute(uri: uri, method: method, headers: headers, body: body) { response in
            HTTPAnswer(status: response.status, body: Data(buffer: response.body))
        }
    }

    func createPhone(_ name: String = "Test phone") async throws -> PhoneSummary {
        let answer = try await send(.post, "/api/phones", json: ["name": name])
        #expect(answer.status == .created)
        return try answer.decode(PhoneSummary.self)
    }

    /// `extra` adds fields such as `transaction` or `accountId`.
    func startSession(_ type: String, user: String, displayName: String? = nil, extra: [String: Any] = [:]) async throws -> BackendSession {
        var body: [String: Any] = extra.merging(["type": type, "userId": user]) { _, fixed in fixed }
        if let displayName { body["displayName"] = displayName }
        let answer = try await send(.post, "/api/backend/sessions", json: body)
        #expect(answer.status == .created)
        return try answer.decode(BackendSession.self)
    }

    func backendSession(_ id: String) async throws -> BackendSession {
        try await send(.get, "/api/backend/sessions/\(id)").decode(BackendSession.self)
    }

    /// The session the backend started last (a phone's own flow names none: it carries no session object).
    func latestBackendSession() async throws -> BackendSession {
        try #require(try await send(.get, "/api/backend/sessions").decode(BackendSessionList.self).sessions.first)
    }

    func phoneDetail(_ id: String) async throws -> PhoneDetail {
        try await send(.get, "/api/phones/\(id)").decode(PhoneDetail.self)
    }
}

/// `GET /api/backend/sessions`, newest first.
struct BackendSessionList: Decodable {
    let sessions: [BackendSession]
}

/// What the phone's screen receives over its WebSocket.
struct ScreenMessage: Decodable {
    struct ErrorBody: Decodable {
        let code: String
        let message: String
    }
    let type: String
    let flow: Flow?
    let phone: PhoneDetail?
    let notification: PushService.InboxMessage?
    let operation: OperationProgress?
    let session: SessionStart?
    let error: ErrorBody?
}

/// Reads the screen's WebSocket one message at a time, as the page does.
struct Screen {
    var iterator: WebSocketInboundMessageStream.AsyncIterator
    let outbound: WebSocketOutboundWriter

    init(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) {
        iterator = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        self.outbound = outbound
    }

    mutating func next() async throws -> ScreenMessage {
        guard let message = try await iterator.next() else { throw ScreenClosed() }
        guard case .text(let text) = message else { throw ScreenClosed() }
        let decoded = try WireJSON.decoder().decode(ScreenMessage.self, from: Data(text.utf8))
        try Self.expectWrittenAsFoundationWrites(decoded)
        return decoded
    }

    /// Every screen message a test reads is written again both ways: on real flows, phones and
    /// notifications, `WireJSON.bytes` must give Foundation's encoder's bytes.
    static func expectWrittenAsFoundationWrites(_ message: ScreenMessage) throws {
        let parts: [(any Encodable)?] = [message.flow, message.phone, message.notification, message.operation, message.session]
        for case let part? in parts {
            #expect(try WireJSON.bytes(part) == Array(WireJSON.encoder().encode(part)))
        }
    }

    /// The next FlowUpdate, skipping other messages.
    mutating func nextFlow() async throws -> Flow {
        while true {
            let message = try await next()
            if let flow = message.flow { return flow }
        }
    }

    /// The next news of a scanned session before its flow (docs/behaviour.md#offline-otp), skipping other messages.
    mutating func nextSession() async throws -> SessionStart {
        while true {
            let message = try await next()
            if let session = message.session { return session }
        }
    }

    /// Reads FlowUpdates until one is no longer PROCESSING.
    mutating func settledFlow() async throws -> Flow {
        while true {
            let flow = try await nextFlow()
            if flow.state != .processing { return flow }
        }
    }

    func send(_ object: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: object)
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
    }

    struct ScreenClosed: Error {}
}

/// Enrols `user` on the phone whose screen is open.
func enrol(
    _ client: some TestClientProtocol, _ screen: inout Screen, phoneId: String, user: String,
    pin: String = "260418"
) async throws {
    let session = try await client.startSession("enrol", user: user)
    // a refused scan fails here at once, rather than leaving the screen to wait out the test's time limit
    let scanned = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
    try #require(scanned.status == .accepted, "the scan was refused: \(String(decoding: scanned.body, as: UTF8.self))")
    _ = try await screen.settledFlow()
    try await screen.send(["action": "confirmSession"])
    _ = try await screen.settledFlow()
    try await screen.send(["action": "inputSecondFactor", "pin": pin])
    #expect(try await screen.settledFlow().state == .done)
}

/// A live app with a phone enrolled for alice, its screen open.
func withEnrolledPhone(
    _ configuration: AppConfiguration = testConfiguration(), logger: Logger = Logger(label: "authphone"),
    _ body: @escaping @Sendable (any TestClientProtocol, inout Screen, String) async throws -> Void
) async throws {
    let app = try await buildApplication(configuration, logger: logger)
    try await app.test(.live) { client in
        let phone = try await client.createPhone()
        try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
            var screen = Screen(inbound, outbound)
            _ = try await screen.next()
            try await enrol(client, &screen, phoneId: phone.id, user: "alice")
            try await body(client, &screen, phone.id)
        }
    }
}

/// The same, with waits recorded instead of slept (or the given ones) and jitter always one half.
func withEnrolledPhone(
    clock: TestClock = TestClock(Date()), sleep: (@Sendable (Duration) async throws -> Void)? = nil,
    _ body: @escaping @Sendable (any TestClientProtocol, inout Screen, String, SleepRecorder) async throws -> Void
)
    async throws
{
    let sleeper = SleepRecorder()
    var configuration = testConfiguration()
    configuration.sleep = sleep ?? { sleeper.sleep($0) }
    configuration.random = { 0.5 }
    configuration.now = { clock.now() }
    try await withEnrolledPhone(configuration) { client, screen, phoneId in try await body(client, &screen, phoneId, sleeper) }
}

/// A phone of the test's own that talks over HTTP to the backends `allowed` names, as
/// `--backend-url` would make it.
func remotePhones(allowing allowed: @escaping @Sendable () -> [String]) throws -> PhoneService {
    PhoneService(store: try .inMemory(), configuration: .init(allowedBackends: allowed, pinDerivation: PinKeyDerivation(profile: .fast)))
}

/// The requests a server of the test's own got.
final class Hits: Sendable {
    private let counted = Mutex(0)
    var count: Int { counted.withLock { $0 } }
    func add() { counted.withLock { $0 += 1 } }
}

/// A server of the test's own on a free local port: `answer` answers POSTs to `path`, given the
/// request and the server's base URL; `body` runs while it listens and gets that base URL.
func withServer<T: Sendable>(
    answering path: String = BackendRoutes.redeem,
    _ answer: @escaping @Sendable (Request, String) async throws -> Response,
    _ body: @escaping @Sendable (String) async throws -> T
) async throws -> T {
    let router = Router()
    router.post(RouterPath(path)) { request, _ in try await answer(request, "http://\(request.head.authority ?? "")") }
    return try await Application(router: router).test(.live) { client in
        try await body("http://127.0.0.1:\(try #require(client.port))")
    }
}

/// A redeem answer for a session at `base`, signed by `serverKey` unless `signedBy` forges it.
func redeemAnswer(
    at base: String, serverKey: Ed25519.KeyPair, type: WireSessionType = .login, transaction: String? = nil,
    signedBy: Ed25519.KeyPair? = nil
) throws -> Response {
    let session = UUID().uuidString.lowercased()
    let challenge = UUID().uuidString
    let answer = RedeemResponse(
        sessionId: session, type: type, expiresAt: Date().addingTimeInterval(300),
        server: WireServer(name: "Scripted backend", url: base, publicKey: Base64URL.encode(serverKey.publicKey)),
        announceInfo: [:], displayName: nil, existingAccounts: nil, userId: "alice", transaction: transaction, challenge: challenge,
        serverSignature: Base64URL.encode((signedBy ?? serverKey).sign(SignedMessage.server(sessionId: session, challenge: challenge))))
    return Response(
        status: .ok, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(data: try WireJSON.encoder().encode(answer))))
}

/// A payload that sends the phone to `base`'s redeem route.
func payload(redeemingAt base: String) throws -> OutOfBandPayload {
    OutOfBandPayload(redeemData: .init(token: UUID().uuidString, redeemURL: try #require(URL(string: base + BackendRoutes.redeem))))
}

/// Serves an app on the port its configuration names while `body` runs, with the server's base
/// URL: `test(.live)` always takes a free port, so it cannot bring a server back at its old one.
func serving<T: Sendable>(_ configuration: AppConfiguration, _ body: @escaping @Sendable (String) async throws -> T) async throws -> T {
    let app = try await buildApplication(configuration)
    let services = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "serving")))
    let base = "http://\(configuration.host):\(configuration.port)"
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await services.run() }
        do {
            // waiting for the real server to listen, as scripts/lib/test-servers.sh does
            while (try? await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/health"), timeout: .seconds(1))) == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            let value = try await body(base)
            await services.triggerGracefulShutdown()
            return value
        } catch {
            await services.triggerGracefulShutdown()
            throw error
        }
    }
}
