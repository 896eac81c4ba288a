import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import WireJSON

/// Why one scripted operation failed: the server's error code, a flow's error code, or what
/// the generator saw (`TIMEOUT`, `CONNECTION`).
public struct LoadFailure: Error, Sendable, Equatable {
    public let code: String
    public let detail: String

    public init(_ code: String, _ detail: String) {
        self.code = code
        self.detail = detail
    }
}

/// The server's JSON API as a script uses it: only the address it is given.
public struct ServerAPI: Sendable {
    let base: String
    let http: HTTPClient
    let timeout: TimeAmount

    public init(base: String, http: HTTPClient = .shared, timeout: TimeAmount = .seconds(30)) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.http = http
        self.timeout = timeout
    }

    /// A JSON request; a refusal becomes a LoadFailure with the server's code.
    public func call(_ method: HTTPMethod, _ path: String, _ body: [String: any Sendable]? = nil) async throws -> [String: Any] {
        try await call(method, path, json: try body.map { try JSONSerialization.data(withJSONObject: $0) })
    }

    /// A JSON request whose answer is read as `Answer`, through WireJSON.
    public func call<Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, _ body: [String: any Sendable], answer: Answer.Type
    ) async throws -> Answer {
        let bytes = try await answered(method, path, json: try JSONSerialization.data(withJSONObject: body))
        do { return try WireJSON.decoder().decode(Answer.self, from: bytes) } catch {
            throw LoadFailure("UNEXPECTED_ANSWER", "\(method) \(path): \(WireJSON.describe(error))")
        }
    }

    /// A request whose body is JSON already.
    public func call(_ method: HTTPMethod, _ path: String, json body: Data?) async throws -> [String: Any] {
        let bytes = try await answered(method, path, json: body)
        return (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] ?? [:]
    }

    /// A 2xx answer's bytes; a refusal becomes a LoadFailure with the server's code.
    private func answered(_ method: HTTPMethod, _ path: String, json body: Data?) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do { response = try await http.execute(request, timeout: timeout) } catch {
            throw LoadFailure("CONNECTION", "\(method) \(path): \(error)")
        }
        let bytes = Data(buffer: try await response.body.collect(upTo: 4 << 20))
        guard (200..<300).contains(response.status.code) else {
            let json = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] ?? [:]
            throw Self.refusal(json, status: response.status.code, "\(method) \(path)")
        }
        return bytes
    }

    /// A refusal's code and message: AuthPhone's `{"error": {"code", "message"}}`, or FCM's shape,
    /// a number in `code` and the code itself among `details` or in `status`.
    static func refusal(_ json: [String: Any], status: UInt, _ request: String) -> LoadFailure {
        let error = json["error"] as? [String: Any]
        let fcmCode = (error?["details"] as? [[String: Any]])?.lazy.compactMap { $0["errorCode"] as? String }.first ?? error?["status"] as? String
        return LoadFailure(error?["code"] as? String ?? fcmCode ?? "HTTP_\(status)", error?["message"] as? String ?? request)
    }

    /// A text answer (`/metrics`); a refusal becomes a LoadFailure with its status.
    public func text(_ path: String) async throws -> String {
        let response: HTTPClientResponse
        do { response = try await http.execute(HTTPClientRequest(url: base + path), timeout: timeout) } catch {
            throw LoadFailure("CONNECTION", "GET \(path): \(error)")
        }
        let bytes = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok else {
            let json = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:]
            throw Self.refusal(json, status: response.status.code, "GET \(path)")
        }
        return String(buffer: bytes)
    }
}

/// One simulated phone driven over the same API and WebSocket as its page: enrolled once, then
/// logging in whenever the load asks. Its screen messages arrive on `messages`. One task uses
/// it at a time (its runner's), hence the unchecked Sendable.
final class ScriptedPhone: @unchecked Sendable {
    let id: String
    let user: String
    let fcmToken: String
    let pin: String
    var accountId: String?
    private var lastFlowId: String?
    private var messages: WebSocketInboundMessageStream.AsyncIterator
    private let outbound: WebSocketOutboundWriter

    init(id: String, user: String, fcmToken: String, pin: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) {
        self.id = id
        self.user = user
        self.fcmToken = fcmToken
        self.pin = pin
        messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        self.outbound = outbound
    }

    /// The next screen message, as JSON.
    func nextMessage() async throws -> [String: Any] {
        guard let message = try await messages.next() else { throw LoadFailure("CONNECTION", "the phone's WebSocket closed") }
        guard case .text(let text) = message,
            let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        else { return [:] }
        return json
    }

    /// The next FlowUpdate's flow; an input the screen refuses (`{"type": "error"}`) is a failure.
    func nextFlow() async throws -> [String: Any] {
        while true {
            let message = try await nextMessage()
            if message["type"] as? String == "error", let error = message["error"] as? [String: Any] {
                throw LoadFailure(error["code"] as? String ?? "REFUSED", error["message"] as? String ?? "the input was refused")
            }
            if message["type"] as? String == "flowUpdate", let flow = message["flow"] as? [String: Any] { return flow }
        }
    }

    /// The flow once an input has been carried out: the first FlowUpdate after PROCESSING.
    func settledFlow() async throws -> [String: Any] {
        var seenProcessing = false
        while true {
            let flow = try await nextFlow()
            if flow["state"] as? String == "PROCESSING" {
                seenProcessing = true
            } else if seenProcessing {
                return flow
            }
        }
    }

    /// Reads until a FlowUpdate of a new flow (or the current one) reaches `state` (and
    /// `interaction`); an ERROR ends the wait with the flow's code.
    func waitForFlow(_ state: String, _ interaction: String? = nil, newFlow: Bool = false) async throws -> [String: Any] {
        while true {
            let message = try await nextMessage()
            guard message["type"] as? String == "flowUpdate", let flow = message["flow"] as? [String: Any],
                let flowId = flow["id"] as? String
            else { continue }
            if newFlow, flowId == lastFlowId { continue }
            lastFlowId = flowId
            let current = flow["state"] as? String
            if current == "ERROR" {
                let error = flow["error"] as? [String: Any]
                throw LoadFailure(error?["code"] as? String ?? "FLOW_ERROR", error?["message"] as? String ?? "the flow ended in ERROR")
            }
            let shown = (flow["currentInteraction"] as? [String: Any])?["type"] as? String
            if current == state, interaction == nil || shown == interaction { return flow }
        }
    }

    /// Sends the page's own input over the WebSocket, and returns when it is written.
    func send(_ action: [String: any Sendable]) async throws {
        let data = try JSONSerialization.data(withJSONObject: action)
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
    }

    /// The user's part of a flow that waits for CONFIRM: confirm, PIN, DONE. With `timed`, each
    /// input is timed from the page's side until the FlowUpdate it causes (PROCESSING).
    func confirmAndProvePin(account: String?, newFlow: Bool, timed: ((Duration) -> Void)? = nil) async throws {
        try await waitForFlow("WAIT_FOR_INPUT", "CONFIRM", newFlow: newFlow)
        var confirm: [String: any Sendable] = ["action": "confirmSession"]
        confirm["account"] = account
        try await input(confirm, timed: timed)
        try await waitForFlow("WAIT_FOR_INPUT", account == nil ? "SET_SECOND_FACTOR" : "VERIFY_SECOND_FACTOR")
        try await input(["action": "inputSecondFactor", "pin": pin], timed: timed)
        try await waitForFlow("DONE")
    }

    private func input(_ action: [String: any Sendable], timed: ((Duration) -> Void)?) async throws {
        let clock = ContinuousClock()
        let sent = clock.now
        try await send(action)
        guard let timed else { return }
        try await waitForFlow("PROCESSING")
        timed(clock.now - sent)
    }

    /// Enrols the user by QR text, then lets pushes open at once (as an app in the foreground).
    func enrol(_ api: ServerAPI) async throws {
        let session = try await api.call(.POST, "/api/backend/sessions", ["type": "enrol", "userId": user])
        guard let qr = session["qrText"] as? String else { throw LoadFailure("BAD_ANSWER", "no qrText in the new session") }
        _ = try await api.call(.POST, "/api/phones/\(id)/oob", ["qr": qr])
        try await confirmAndProvePin(account: nil, newFlow: true)
        let phone = try await api.call(.GET, "/api/phones/\(id)")
        accountId = ((phone["accounts"] as? [[String: Any]])?.first)?["id"] as? String
        _ = try await api.call(.PUT, "/api/phones/\(id)/settings", ["openPushesAtOnce": true])
    }

    /// One out-of-band login: the backend pushes the session through the FCM endpoint, the phone
    /// opens it at once, the user confirms and gives the PIN (each input timed with `timed`).
    func login(_ api: ServerAPI, timed: ((Duration) -> Void)? = nil) async throws {
        _ = try await api.call(
            .POST, "/api/backend/sessions",
            ["type": "login", "userId": user, "delivery": "push", "pushToken": fcmToken])
        try await confirmAndProvePin(account: accountId, newFlow: true, timed: timed)
    }
}

extension ScriptedPhone {
    /// Creates a phone on the server and holds its screen's WebSocket open while `body` runs.
    static func withNewPhone(
        _ api: ServerAPI, name: String, user: String, pin: String,
        _ body: @escaping @Sendable (ScriptedPhone) async throws -> Void
    ) async throws {
        let created = try await api.call(.POST, "/api/phones", ["name": name])
        guard let id = created["id"] as? String, let token = created["fcmToken"] as? String else {
            throw LoadFailure("BAD_ANSWER", "no id or fcmToken in the new phone")
        }
        let wsURL = api.base.replacingOccurrences(of: "http", with: "ws", options: .anchored) + "/api/phones/\(id)/stream"
        let configuration = WebSocketClientConfiguration()
        let logger = Logger(label: "authphone.load")
        do {
            try await WebSocketClient.connect(url: wsURL, configuration: configuration, logger: logger) { inbound, outbound, _ in
                let phone = ScriptedPhone(id: id, user: user, fcmToken: token, pin: pin, inbound: inbound, outbound: outbound)
                _ = try await phone.nextMessage()  // the snapshot sent on connect
                try await body(phone)
            }
        } catch let failure as LoadFailure {
            throw failure
        } catch {
            throw LoadFailure("CONNECTION", "the phone's WebSocket: \(error)")
        }
    }
}
