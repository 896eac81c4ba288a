import AuthFlow
import Backend
import BackendAPI
import Faults
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Phone
import PushService
import ServiceLifecycle
import WireJSON

/// The WebSockets: a phone's screen (FlowUpdates out, the user's input in) and the console's
/// live session list.
struct StreamController {
    let phones: PhoneService
    let backend: DemoBackend
    let push: PushService
    let faults: FaultInjector
    let monitor: ServiceMonitor
    /// With several instances: a screen whose phone is at home on another is joined to it there.
    let forwarding: PhoneForwarding?
    /// Where a walk being recorded keeps the screen's input.
    let recordings: Recordings
    static let maxMessageSize = 16 * 1024

    /// What a screen may fall behind by before it loses its oldest messages.
    static let screenBuffer = 128

    /// A message to the phone's screen. Indirect, so that the long-lived connection tasks that
    /// hold one keep a pointer rather than the largest payload in their frames.
    indirect enum ScreenMessage: Encodable {
        case phone(PhoneDetail)
        case flowUpdate(Flow)
        case notification(PushService.InboxMessage)
        /// A waiting message left the inbox as it was opened.
        case notificationOpened(id: String)
        case operation(OperationProgress)
        /// A scanned session before its flow (docs/behaviour.md#offline-otp): STARTING with its OTP offer, READY, STOPPED.
        case session(SessionStart)
        /// An OTP account imported, moved to its next code or deleted (never its secret or a code).
        case otpAccount(OTPAccountChange)
        /// A privacyIDEA enrolment or challenge on screen (docs/privacyidea.md).
        case privacyIDEA(PrivacyIDEARequest)
        /// The phone's privacyIDEA push tokens after one was added or removed.
        case pushTokens([PushTokenSummary])
        case containers([ContainerSummary])
        /// A text arrived in the Messages app (docs/sms.md).
        case textMessage(TextMessage)
        case faults([FaultView])
        case error(code: String, message: String)

        private enum Keys: String, CodingKey {
            case type, phone, flow, notification, notificationOpened, operation, session, otpAccount, privacyIDEA, pushTokens, containers,
                textMessage, faults, error
        }

        init(_ event: PhoneEvent) {
            switch event {
            case .flowUpdate(let flow): self = .flowUpdate(flow)
            case .phoneChanged(let phone): self = .phone(phone)
            case .operation(let progress): self = .operation(progress)
            case .session(let session): self = .session(session)
            case .otpAccount(let change): self = .otpAccount(change)
            case .privacyIDEA(let request): self = .privacyIDEA(request)
            case .pushTokens(let tokens): self = .pushTokens(tokens)
            case .containers(let containers): self = .containers(containers)
            case .textMessage(let message): self = .textMessage(message)
            }
        }
        private struct ErrorBody: Encodable {
            let code: String
            let message: String
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            switch self {
            case .phone(let phone):
                try container.encode("phone", forKey: .type)
                try container.encode(phone, forKey: .phone)
            case .flowUpdate(let flow):
                try container.encode("flowUpdate", forKey: .type)
                try container.encode(flow, forKey: .flow)
            case .notification(let message):
                try container.encode("notification", forKey: .type)
                try container.encode(message, forKey: .notification)
            case .notificationOpened(let id):
                try container.encode("notificationOpened", forKey: .type)
                try container.encode(["id": id], forKey: .notificationOpened)
            case .operation(let progress):
                try container.encode("operation", forKey: .type)
                try container.encode(progress, forKey: .operation)
            case .session(let session):
                try container.encode("session", forKey: .type)
                try container.encode(session, forKey: .session)
            case .otpAccount(let change):
                try container.encode("otpAccount", forKey: .type)
                try container.encode(change, forKey: .otpAccount)
            case .privacyIDEA(let request):
                try container.encode("privacyIDEA", forKey: .type)
                try container.encode(request, forKey: .privacyIDEA)
            case .pushTokens(let tokens):
                try container.encode("pushTokens", forKey: .type)
                try container.encode(tokens, forKey: .pushTokens)
            case .containers(let containers):
                try container.encode("containers", forKey: .type)
                try container.encode(containers, forKey: .containers)
            case .textMessage(let message):
                try container.encode("textMessage", forKey: .type)
                try container.encode(message, forKey: .textMessage)
            case .faults(let list):
                try container.encode("faults", forKey: .type)
                try container.encode(list, forKey: .faults)
            case .error(let code, let message):
                try container.encode("error", forKey: .type)
                try container.encode(ErrorBody(code: code, message: message), forKey: .error)
            }
        }
    }

    /// The faults a phone's screen shows: its own, the backend's, the push service's and the SMS gateway's.
    static func faults(_ list: [Fault], for phoneId: String) -> [FaultView] {
        list.filter { [.backend, .push, .sms, .phone(phoneId)].contains($0.target) }
            .map(FaultView.init)
    }

    struct SessionMessage: Encodable {
        let type = "session"
        let session: BackendSession
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.ws("/api/phones/{id}/stream") { _, context in
            let id = try context.parameters.require("id")
            _ = try await Self.briefly { try await phones.phone(id: id) }
            return .upgrade()
        } onUpgrade: { inbound, outbound, context in
            let id = try context.requestContext.parameters.require("id")
            monitor.webSocketOpened("phone")
            defer { monitor.webSocketClosed("phone") }
            try await Self.untilStopping {
                try await screen(of: id, inbound: inbound, outbound: outbound, headers: context.request.headers)
            }
        }

        router.ws("/api/backend/stream") { _, _ in
            .upgrade()
        } onUpgrade: { inbound, outbound, _ in
            monitor.webSocketOpened("console")
            defer { monitor.webSocketClosed("console") }
            try await Self.send(backend.events.subscribe(), as: { SessionMessage(session: $0) }, inbound: inbound, outbound: outbound)
        }
    }

    /// A phone's screen: its phone, then everything it is told, and the user's actions from it,
    /// until the page goes (or, its phone at home on another instance, the home's screen joined).
    private func screen(of id: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, headers: HTTPFields) async throws {
        if let forwarding, let home = try await forwarding.elsewhere(id, headers: headers) {
            return try await forwarding.joinScreen(of: id, at: home, inbound: inbound, outbound: outbound, headers: headers)
        }
        // One stream and one task carry everything the screen is told; the sources hand
        // their values to it directly. Subscribe before the snapshot so no update falls
        // between the two.
        let (screen, feed) = AsyncStream<ScreenMessage>.makeStream(bufferingPolicy: .bufferingNewest(Self.screenBuffer))
        var subscriptions = [phones.events.forward(id) { feed.yield(ScreenMessage($0)) }]
        defer {
            for subscription in subscriptions { subscription.cancel() }
            feed.finish()
        }
        // the snapshot, and the messages that arrived while the phone was offline, as text
        let (token, snapshot, waiting) = try await Self.briefly {
            let phone = try await phones.phone(id: id)
            let waiting = try await push.inbox(token: phone.fcmToken).map { Self.json(ScreenMessage.notification($0)) }
            return (phone.fcmToken, Self.json(ScreenMessage.phone(phone)), waiting)
        }
        subscriptions.append(push.deliveries.forward(token) { feed.yield(.notification($0)) })
        subscriptions.append(push.openings.forward(token) { feed.yield(.notificationOpened(id: $0)) })
        subscriptions.append(faults.changes.forward { feed.yield(.faults(Self.faults($0, for: id))) })
        if let forwarding {
            // another instance took the phone while this one missed its lease: the page, told so,
            // connects again and is joined to the phone's new home
            subscriptions.append(
                forwarding.homes.departures.forward(id) { _ in
                    feed.yield(.error(code: "PHONE_MOVED", message: "the phone's flow runs on another instance now; connect again"))
                    feed.finish()
                })
        }
        try await outbound.write(.text(snapshot))
        // faults in force come after the snapshot (none: nothing is sent)
        let inForce = Self.faults(faults.active, for: id)
        if !inForce.isEmpty { try await send(.faults(inForce), outbound) }
        for text in waiting { try await outbound.write(.text(text)) }
        // whichever ends first ends the screen: the page going, or what it is told (its phone moved)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in screen { try await send(message, outbound) }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: Self.maxMessageSize) {
                    guard case .text(let text) = message else {
                        try await send(.error(code: "MALFORMED_MESSAGE", message: "messages are JSON text"), outbound)
                        continue
                    }
                    do {
                        try await handle(text, phoneId: id)
                    } catch {
                        guard let refusal = APIError.from(error) as? APIError else { throw error }
                        try await send(.error(code: refusal.code, message: refusal.message), outbound)
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// A stream for a page that only listens: each value as its JSON message until the page
    /// goes; what the page sends is read and ignored.
    static func send<Value: Sendable, Message: Encodable>(
        _ values: AsyncStream<Value>, as message: @escaping @Sendable (Value) -> Message, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter
    ) async throws {
        try await untilStopping {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await value in values { try await outbound.write(.text(json(message(value)))) }
                }
                for try await _ in inbound.messages(maxSize: maxMessageSize) {}
                group.cancelAll()
            }
        }
    }

    /// Serves a WebSocket until its page goes or the server stops. Stopping, the WebSocket
    /// library tells the page it closes, but a page that never answers (a script that does not
    /// read) held the stop for as long as it stayed connected: the server stops serving it then.
    static func untilStopping(_ serve: @escaping @Sendable () async throws -> Void) async throws {
        do { try await cancelWhenGracefulShutdown(serve) } catch  where Task.isShuttingDownGracefully {}
    }

    /// Carries out one message from the screen; anything wrong with it is an APIError.
    private func handle(_ text: String, phoneId: String) async throws {
        let input: PhoneActions.Input
        do { input = try PhoneActions.decode(Data(text.utf8), what: "the message") } catch {
            throw APIError(.badRequest, "MALFORMED_MESSAGE", error.message)
        }
        try await PhoneActions(phones: phones, recordings: recordings).carryOut(input, phoneId: phoneId)
    }

    /// Runs deep work (database reads) in a task of its own. A task keeps the memory its
    /// deepest call needed until it ends, and a phone's connection task lives as long as the
    /// screen is open: with 10,000 screens that was most of the server's memory.
    static func briefly<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await work() }.value
    }

    private func send(_ message: ScreenMessage, _ outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.text(Self.json(message)))
    }

    static func json(_ value: some Encodable) -> String {
        (try? WireJSON.string(value)) ?? "{}"
    }
}
