import Broadcast
import Faults
import Foundation
import OutOfBand

/// A stand-in for Firebase Cloud Messaging: it knows the registration tokens of the simulated
/// phones, accepts FCM HTTP v1 sends for them, and keeps each phone's messages in an inbox
/// until the phone opens or clears them, so a phone that is offline gets them when it is back.
public final class PushService: Sendable {
    public struct Configuration: Sendable {
        /// The Firebase project id that senders must name.
        public var project: String
        /// Push-bombing guard: at most this many messages per token in `rateWindow`.
        public var rateLimit: Int
        public var rateWindow: TimeInterval

        public init(project: String = "authphone", rateLimit: Int = 30, rateWindow: TimeInterval = 60) {
            self.project = project
            self.rateLimit = rateLimit
            self.rateWindow = rateWindow
        }
    }

    /// A message waiting in a phone's inbox.
    public struct InboxMessage: Codable, Equatable, Sendable {
        public var id: String
        public var name: String
        public var receivedAt: Date
        public var message: PushMessage
    }

    let store: PushStore
    let configuration: Configuration
    let now: @Sendable () -> Date
    /// New messages, per registration token.
    public let deliveries = KeyedBroadcaster<String, InboxMessage>()
    /// Every new message with its token, for whatever acts on all phones' pushes.
    public let allDeliveries = Broadcaster<(token: String, message: InboxMessage)>()

    let faults: FaultInjector?
    let sleep: @Sendable (Duration) async throws -> Void

    public init(
        store: PushStore, configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = Date.init,
        faults: FaultInjector? = nil, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.store = store
        self.configuration = configuration
        self.now = now
        self.faults = faults
        self.sleep = sleep
    }

    // MARK: the platform side (what a phone's operating system does)

    /// A new token, as the FCM SDK hands one to an app.
    public func register(token: String) async throws {
        try await register(tokens: [token])
    }

    /// Many tokens in one transaction: a server starting with 10,000 phones registers them all
    /// in a few milliseconds instead of one commit each.
    public func register(tokens: [String]) async throws {
        try await store.register(tokens: tokens, at: now())
    }

    /// The token stops working: sends to it answer UNREGISTERED from now on.
    public func retire(token: String) async throws {
        try await store.retire(token: token, at: now())
    }

    public func inbox(token: String) async throws -> [InboxMessage] {
        try await store.inbox(token: token)
    }

    /// Removes one message (it was opened) and returns it; nil when there is no such message.
    public func take(token: String, id: String) async throws -> InboxMessage? {
        try await store.take(token: token, id: id)
    }

    /// No registration, no inbox, no rate window left.
    public func reset() async throws {
        try await store.erase()
    }

    public func clearInbox(token: String) async throws {
        try await store.clearInbox(token: token)
    }

    // MARK: the sender side (FCM HTTP v1)

    /// What became of an accepted send: the sender sees only the name, as with FCM.
    public struct Accepted: Sendable, Equatable {
        public enum Fate: String, Sendable {
            /// In the phone's inbox now.
            case delivered
            /// Checked only (`validate_only`).
            case validated
            /// Lost by a fault, or held back by one.
            case dropped, delayed
        }
        /// The message's resource name.
        public let name: String
        public let fate: Fate
    }

    /// `POST /v1/projects/{project}/messages:send`.
    public func send(project: String, body: [UInt8]) async throws(FCMError) -> Accepted {
        let request = try FCMSendRequest.parse(body)
        guard project == configuration.project else { throw .senderIdMismatch(project) }
        let registered: Bool
        do {
            registered = try await store.isRegistered(token: request.token)
        } catch {
            throw .internalError("the push service's storage failed")
        }
        guard registered else { throw .unregistered(request.token) }
        let id = UUID().uuidString.lowercased()
        let name = "projects/\(project)/messages/\(id)"
        if request.validateOnly { return Accepted(name: name, fate: .validated) }
        try await admit(request.token)

        var message = request.message
        message.messageId = id
        message.from = configuration.project
        switch faults?.strike([.push], requests: false) {
        case .dropPush:
            return Accepted(name: name, fate: .dropped)  // accepted, and lost on its way to the phone
        case .delayPush(let seconds):
            let token = request.token
            Task { [self] in
                try await sleep(.seconds(seconds))
                try? await deliver(InboxMessage(id: id, name: name, receivedAt: now(), message: message), to: token)
            }
            return Accepted(name: name, fate: .delayed)
        default:
            try await deliver(InboxMessage(id: id, name: name, receivedAt: now(), message: message), to: request.token)
            return Accepted(name: name, fate: .delivered)
        }
    }

    /// Puts a message in the phone's inbox and tells whoever listens for it.
    private func deliver(_ delivered: InboxMessage, to token: String) async throws(FCMError) {
        do {
            try await store.deliver(delivered, to: token)
        } catch {
            throw .internalError("the push service's storage failed")
        }
        deliveries.send(delivered, to: token)
        allDeliveries.send((token, delivered))
    }

    /// Counts the send against the token's window (kept in the database: a restart does not
    /// reset the guard); refuses it past the limit, counting nothing.
    private func admit(_ token: String) async throws(FCMError) {
        let window = configuration.rateWindow
        let limit = configuration.rateLimit
        let wait: TimeInterval?
        do { wait = try await store.admit(token: token, at: now(), window: window, limit: limit) } catch {
            throw .internalError("the push service's storage failed")
        }
        if let wait {
            throw .quotaExceeded(
                "Too many messages to this device: at most \(limit) in \(Int(window)) s (push bombing guard).",
                retryAfter: max(1, Int(wait.rounded(.up))))
        }
    }
}
