import Broadcast
import Faults
import Foundation
import Identifiers
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
        /// The push log keeps this many newest messages.
        public var logLimit: Int

        public init(project: String = "authphone", rateLimit: Int = 30, rateWindow: TimeInterval = 60, logLimit: Int = 1000) {
            self.project = project
            self.rateLimit = rateLimit
            self.rateWindow = rateWindow
            self.logLimit = logLimit
        }
    }

    /// A message waiting in a phone's inbox.
    public struct InboxMessage: Codable, Equatable, Sendable {
        public var id: String
        public var name: String
        public var receivedAt: Date
        public var message: PushMessage
        /// The app on the phone the message is for, which its notification names.
        public var app: PhoneAppName

        public init(id: String, name: String, receivedAt: Date, message: PushMessage) {
            self.id = id
            self.name = name
            self.receivedAt = receivedAt
            self.message = message
            app = PhoneAppName.claiming(push: message.data)
        }
    }

    let store: PushStore
    let configuration: Configuration
    let now: @Sendable () -> Date
    /// New messages, per registration token.
    public let deliveries = KeyedBroadcaster<String, InboxMessage>()
    /// The ids of messages taken out of an inbox as they were opened, per registration token: a
    /// screen that showed one as waiting stops showing it (a privacyIDEA challenge the phone
    /// opened by itself, say).
    public let openings = KeyedBroadcaster<String, String>()
    /// Every new message with its token, for whatever acts on all phones' pushes (the opener,
    /// the timeline): none lost, or a burst of logins would leave pushes unopened.
    public let allDeliveries = Broadcaster<(token: String, message: InboxMessage)>.keepingEvery()
    /// Every message the other instances on one PostgreSQL deliver, for what tells of each push
    /// wherever it was taken (the event streams); what acts on a push did so where it was taken.
    public let otherInstancesDeliveries = Broadcaster<(token: String, message: InboxMessage)>.keepingEvery()

    let faults: FaultInjector?
    let sleep: @Sendable (Duration) async throws -> Void
    /// The tokens the token endpoint issued (`PushService+Credentials.swift`).
    let accessTokens = AccessTokens()

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
        let taken = try await store.take(token: token, id: id)
        if taken != nil { openings.send(id, to: token) }
        return taken
    }

    /// No registration, no inbox, no rate window left; the senders' service accounts stay.
    public func reset() async throws {
        try await store.eraseDeliveries()
    }

    public func clearInbox(token: String) async throws {
        try await store.clearInbox(token: token)
    }

    /// A push the phone got by other means (a user pasting one a device log showed): it goes
    /// into the inbox and is announced as FCM's deliveries are, so the phone treats it the same.
    public func receive(_ message: PushMessage, token: String) async throws(FCMError) -> InboxMessage {
        let id = UUID.random().uuidString.lowercased()
        var message = message
        message.messageId = id
        message.from = message.from ?? configuration.project
        let received = InboxMessage(id: id, name: resourceName(id), receivedAt: now(), message: message)
        try await deliver(received, to: token) { _ in nil }  // it never reached the FCM endpoint: no log entry
        return received
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

    /// `POST /v1/projects/{project}/messages:send`. Every send is logged, accepted or refused,
    /// with what became of it (`messages`).
    public func send(project: String, body: [UInt8], sender: String = "") async throws(FCMError) -> Accepted {
        let id = UUID.random().uuidString.lowercased()
        var parsed: FCMSendRequest?
        do {
            let request = try FCMSendRequest.parse(body)
            parsed = request
            let name = resourceName(id)
            let fate = try await accept(request, id: id, name: name, project: project) {
                logEntry(id: id, $0, body: body, sender: sender, request: request, name: name)
            }
            return Accepted(name: name, fate: fate)
        } catch {
            await record(logEntry(id: id, PushOutcome(error), body: body, sender: sender, request: parsed, failure: error))
            throw error
        }
    }

    /// A send the endpoint refused before reading it (no bearer token): logged as received.
    public func refused(_ error: FCMError, body: [UInt8], sender: String) async {
        await record(logEntry(id: UUID.random().uuidString.lowercased(), PushOutcome(error), body: body, sender: sender, failure: error))
    }

    private func logEntry(
        id: String, _ outcome: PushOutcome, body: [UInt8], sender: String, request: FCMSendRequest? = nil, name: String? = nil,
        failure: FCMError? = nil
    ) -> PushLogEntry {
        PushLogEntry(
            id: id, receivedAt: now(), sender: sender, body: body, target: request?.target.given ?? FCMSendRequest.target(in: body),
            outcome: outcome, name: name, failure: failure, payloadToken: try? request?.message.payload().redeemData.token)
    }

    /// An entry written on its own (a refusal, a message checked, dropped or held back): the
    /// answer does not fail with the log. A delivered message's entry goes with its inbox row.
    private func record(_ entry: PushLogEntry) async {
        try? await store.writeLog(.insert(entry, limit: configuration.logLimit))
    }

    /// Delivers an accepted request, or checks it only, and logs it: a delivered message's entry
    /// in the transaction that puts it in the inbox, any other on its own.
    private func accept(
        _ request: FCMSendRequest, id: String, name: String, project: String, entry: (PushOutcome) -> PushLogEntry
    ) async throws(FCMError) -> Accepted.Fate {
        guard project == configuration.project else { throw .senderIdMismatch(project) }
        let token = try await registeredToken(request.target)
        if request.validateOnly {
            await record(entry(.validated))
            return .validated
        }
        try await admit(token)

        var message = request.message
        message.messageId = id
        message.from = configuration.project
        let limit = configuration.logLimit
        switch faults?.strike([.push], requests: false) {
        case .drop:
            await record(entry(.dropped))
            return .dropped  // accepted, and lost on its way to the phone
        case .delay(let seconds):
            Task { [self] in
                try await sleep(.seconds(seconds))
                try? await deliver(InboxMessage(id: id, name: name, receivedAt: now(), message: message), to: token) { .outcome(id: id, $0) }
            }
            await record(entry(.delayed))
            return .delayed
        default:
            try await deliver(InboxMessage(id: id, name: name, receivedAt: now(), message: message), to: token) {
                .insert(entry($0), limit: limit)
            }
            return .delivered
        }
    }

    /// The live registration token a target names; UNREGISTERED for an unknown or retired one
    /// (a rotated token's FID is retired with it).
    private func registeredToken(_ target: FCMSendRequest.Target) async throws(FCMError) -> String {
        let found: String?
        let refusal: FCMError
        do {
            switch target {
            case .token(let token): (found, refusal) = (try await store.isRegistered(token: token) ? token : nil, .unregistered(token))
            case .fid(let fid): (found, refusal) = (try await store.registeredToken(fid: fid), .unregisteredInstallation(fid))
            }
        } catch {
            throw .internalError("the push service's storage failed")
        }
        guard let found else { throw refusal }
        return found
    }

    /// A message's name as FCM gives it: `projects/{project}/messages/{id}`.
    private func resourceName(_ id: String) -> String { "projects/\(configuration.project)/messages/\(id)" }

    /// Puts a message in the phone's inbox, logs where it went (a banner when a screen is open
    /// to show it, else the inbox) and tells whoever listens for it.
    private func deliver(
        _ delivered: InboxMessage, to token: String, log: (PushOutcome) -> PushStore.LogWrite?
    ) async throws(FCMError) {
        do {
            try await store.deliver(delivered, to: token, log: log(deliveries.hasSubscribers(token) ? .banner : .inbox))
        } catch {
            throw .internalError("the push service's storage failed")
        }
        deliveries.send(delivered, to: token)
        allDeliveries.send((token, delivered))
    }

    // MARK: the push log

    /// The log, newest first: at most `limit` entries (all it keeps), of the targets (a phone's
    /// token and its fid, which name one app instance) and one outcome when given.
    public func messages(to targets: [String]? = nil, outcome: PushOutcome? = nil, limit: Int? = nil) async throws -> [PushLogEntry] {
        try await store.log(targets: targets, outcome: outcome, limit: limit ?? configuration.logLimit, bound: configuration.logLimit)
    }

    /// The Firebase project senders name.
    public var project: String { configuration.project }

    /// A console's composer state (its JSON as the page sent it), nil before it saved any.
    public func composerState(console: String) async throws -> String? {
        try await store.composerState(console: console)
    }

    public func saveComposerState(console: String, json: String) async throws {
        try await store.saveComposerState(console: console, json: json, at: now())
    }

    /// How many messages the log keeps.
    public var logLimit: Int { configuration.logLimit }

    public func clearMessages() async throws {
        try await store.clearLog()
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
