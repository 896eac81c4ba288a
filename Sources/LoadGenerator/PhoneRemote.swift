import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1

/// A running server's phones driven from a script (`authphone phone …`), adb/simctl style:
/// the same API and screen WebSocket the page uses, one request or one input at a time.
/// A refusal or a flow that ends in ERROR is a `LoadFailure` with the server's code.
public struct PhoneRemote: Sendable {
    let api: ServerAPI

    public init(url: String, http: HTTPClient = .shared) {
        api = ServerAPI(base: url, http: http)
    }

    /// The phone's texts, newest first (`GET /api/phones/{id}/messages`).
    public func messages(_ idOrName: String) async throws -> [[String: Any]] {
        try await api.call(.GET, "/api/phones/\(try await id(idOrName))/messages")["messages"] as? [[String: Any]] ?? []
    }

    /// A new phone, with the number given or the next free one.
    public func create(name: String, number: String? = nil) async throws -> [String: Any] {
        var body: [String: any Sendable] = ["name": name]
        body["number"] = number
        return try await api.call(.POST, "/api/phones", body)
    }

    public func list() async throws -> [[String: Any]] {
        try await api.call(.GET, "/api/phones")["phones"] as? [[String: Any]] ?? []
    }

    /// A phone by its id, or by its name when exactly one phone has it.
    public func phone(_ idOrName: String) async throws -> [String: Any] {
        let phones = try await list()
        if let phone = phones.first(where: { $0["id"] as? String == idOrName }) { return phone }
        let named = phones.filter { $0["name"] as? String == idOrName }
        guard named.count == 1 else {
            throw named.isEmpty
                ? LoadFailure("PHONE_NOT_FOUND", "no phone has the id or name '\(idOrName)'")
                : LoadFailure("PHONE_AMBIGUOUS", "\(named.count) phones are named '\(idOrName)': give its id")
        }
        return named[0]
    }

    /// Out-of-band input: `{"qr": …}`, `{"link": …}` or `{"push": …}`; answers the flow it starts.
    public func open(_ idOrName: String, _ input: [String: any Sendable]) async throws -> [String: Any] {
        try await api.call(.POST, "/api/phones/\(try await id(idOrName))/oob", input)["flow"] as? [String: Any] ?? [:]
    }

    /// Adds an auto-answer rule (the body of `POST /api/phones/{id}/auto-answer`); answers the rule.
    public func addAutoAnswerRule(_ idOrName: String, _ rule: [String: any Sendable]) async throws -> [String: Any] {
        try await api.call(.POST, "/api/phones/\(try await id(idOrName))/auto-answer", rule)
    }

    public func autoAnswerRules(_ idOrName: String) async throws -> [[String: Any]] {
        try await api.call(.GET, "/api/phones/\(try await id(idOrName))/auto-answer")["rules"] as? [[String: Any]] ?? []
    }

    public func clearAutoAnswerRules(_ idOrName: String) async throws {
        _ = try await api.call(.DELETE, "/api/phones/\(try await id(idOrName))/auto-answer")
    }

    private func id(_ idOrName: String) async throws -> String { try await phone(idOrName)["id"] as? String ?? idOrName }

    /// Sends one input of the screen and answers the flow once it has settled again.
    public func input(_ idOrName: String, _ action: [String: any Sendable]) async throws -> [String: Any] {
        try await screen(idOrName) { phone, _ in
            try await phone.send(action)
            return try await phone.settledFlow()
        }
    }

    /// The phone's flow once it is in `state` (at once when it is already), or its end when it
    /// ends otherwise.
    public func wait(_ idOrName: String, state: String) async throws -> [String: Any] {
        try await screen(idOrName) { phone, snapshot in
            var flow = (snapshot["phone"] as? [String: Any])?["flow"] as? [String: Any]
            while true {
                if let current = flow?["state"] as? String {
                    if current == state { return flow ?? [:] }
                    if current == "DONE" || current == "ERROR" { throw Self.ended(flow ?? [:]) }
                }
                flow = try await phone.nextFlow()
            }
        }
    }

    static func ended(_ flow: [String: Any]) -> LoadFailure {
        let error = flow["error"] as? [String: Any]
        return LoadFailure(error?["code"] as? String ?? "FLOW_ENDED", error?["message"] as? String ?? "the flow ended \(flow["state"] ?? "")")
    }

    /// The phone's screen WebSocket, open while `body` runs with the first (snapshot) message.
    private func screen(
        _ idOrName: String, _ body: @escaping @Sendable (ScriptedPhone, [String: Any]) async throws -> [String: Any]
    ) async throws -> [String: Any] {
        let found = try await phone(idOrName)
        guard let id = found["id"] as? String, let token = found["fcmToken"] as? String else {
            throw LoadFailure("BAD_ANSWER", "no id or fcmToken in the phone")
        }
        let wsURL = api.base.replacingOccurrences(of: "http", with: "ws", options: .anchored) + "/api/phones/\(id)/stream"
        let answer = Answer()
        do {
            try await WebSocketClient.connect(url: wsURL, configuration: .init(), logger: Logger(label: "authphone.phone")) {
                inbound, outbound, _ in
                let phone = ScriptedPhone(
                    id: id, user: "", fcmToken: token, pin: "", inbound: inbound, outbound: outbound)
                let snapshot = try await phone.nextMessage()
                answer.set(try await body(phone, snapshot))
            }
        } catch let failure as LoadFailure {
            throw failure
        } catch {
            throw LoadFailure("CONNECTION", "the phone's WebSocket: \(error)")
        }
        return answer.value
    }

    /// What the WebSocket's closure found, handed out of it.
    private final class Answer: @unchecked Sendable {
        private let lock = NSLock()
        private var found: [String: Any] = [:]
        var value: [String: Any] { lock.withLock { found } }
        func set(_ value: [String: Any]) { lock.withLock { found = value } }
    }
}
