import Broadcast
import Faults
import Foundation
import GRDB
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

    let writer: any DatabaseWriter
    let configuration: Configuration
    let now: @Sendable () -> Date
    /// New messages, per registration token.
    public let deliveries = KeyedBroadcaster<String, InboxMessage>()
    /// Every new message with its token, for whatever acts on all phones' pushes.
    public let allDeliveries = Broadcaster<(token: String, message: InboxMessage)>()

    let faults: FaultInjector?
    let sleep: @Sendable (Duration) async throws -> Void

    public init(writer: any DatabaseWriter, configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = Date.init,
                faults: FaultInjector? = nil, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) throws {
        self.writer = writer
        self.configuration = configuration
        self.now = now
        self.faults = faults
        self.sleep = sleep
        try Self.migrator.migrate(writer)
    }

    /// A file database in WAL mode. `synchronous = FULL` because a message FCM answered 200 for
    /// must still be in the inbox after a power loss, not only after a crash (GRDB's pool would
    /// leave it at NORMAL).
    public static func openDatabase(path: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("push-v1") { db in
            try db.create(table: "registration") { t in
                t.primaryKey("token", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("retiredAt", .datetime)
            }
            try db.create(table: "inbox") { t in
                t.primaryKey("id", .text)
                t.column("token", .text).notNull().indexed().references("registration", onDelete: .cascade)
                t.column("name", .text).notNull()
                t.column("message", .jsonText).notNull()
                t.column("receivedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("push-v2-rate-window") { db in
            // the sends each token's rate window still counts, so a restart does not reset the guard
            try db.create(table: "recentSend") { t in
                t.column("token", .text).notNull().indexed()
                t.column("sentAt", .double).notNull()
            }
        }
        return migrator
    }

    // MARK: the platform side (what a phone's operating system does)

    /// A new token, as the FCM SDK hands one to an app.
    public func register(token: String) async throws {
        try await register(tokens: [token])
    }

    /// Many tokens in one transaction: a server starting with 10,000 phones registers them all
    /// in a few milliseconds instead of one commit each.
    public func register(tokens: [String]) async throws {
        let time = now()
        try await writer.write { db in
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO registration (token, createdAt) VALUES (?, ?)")
            for token in tokens { try insert.execute(arguments: [token, time]) }
        }
    }

    /// The token stops working: sends to it answer UNREGISTERED from now on.
    public func retire(token: String) async throws {
        let time = now()
        try await writer.write { db in
            try db.execute(sql: "UPDATE registration SET retiredAt = ? WHERE token = ? AND retiredAt IS NULL", arguments: [time, token])
        }
    }

    public func inbox(token: String) async throws -> [InboxMessage] {
        try await writer.read { db in
            try InboxRecord.filter(Column("token") == token).order(Column("receivedAt"), Column("id")).fetchAll(db).map(\.inboxMessage)
        }
    }

    /// Removes one message (it was opened) and returns it; nil when there is no such message.
    public func take(token: String, id: String) async throws -> InboxMessage? {
        try await writer.write { db in
            guard let record = try InboxRecord.filter(Column("token") == token && Column("id") == id).fetchOne(db) else { return nil }
            try record.delete(db)
            return record.inboxMessage
        }
    }

    public func clearInbox(token: String) async throws {
        _ = try await writer.write { db in try InboxRecord.filter(Column("token") == token).deleteAll(db) }
    }

    // MARK: the sender side (FCM HTTP v1)

    /// `POST /v1/projects/{project}/messages:send`: the message's resource name on success.
    public func send(project: String, body: [UInt8]) async throws(FCMError) -> String {
        let request = try FCMSendRequest.parse(body)
        guard project == configuration.project else { throw .senderIdMismatch(project) }
        let registered: Bool
        do {
            registered = try await writer.read { db in
                try Bool.fetchOne(db, sql: "SELECT retiredAt IS NULL FROM registration WHERE token = ?", arguments: [request.token]) ?? false
            }
        } catch {
            throw .internalError("the push service's storage failed")
        }
        guard registered else { throw .unregistered(request.token) }
        let id = UUID().uuidString.lowercased()
        let name = "projects/\(project)/messages/\(id)"
        if request.validateOnly { return name }
        try await admit(request.token)

        var message = request.message
        message.messageId = id
        message.from = configuration.project
        switch faults?.strike([.push], requests: false) {
        case .dropPush:
            return name // accepted, and lost on its way to the phone
        case .delayPush(let seconds):
            let token = request.token
            Task { [self] in
                try await sleep(.seconds(seconds))
                try? await deliver(InboxMessage(id: id, name: name, receivedAt: now(), message: message), to: token)
            }
            return name
        default:
            try await deliver(InboxMessage(id: id, name: name, receivedAt: now(), message: message), to: request.token)
            return name
        }
    }

    /// Puts a message in the phone's inbox and tells whoever listens for it.
    private func deliver(_ delivered: InboxMessage, to token: String) async throws(FCMError) {
        do {
            try await writer.write { db in try InboxRecord(delivered, token: token).insert(db) }
        } catch {
            throw .internalError("the push service's storage failed")
        }
        deliveries.send(delivered, to: token)
        allDeliveries.send((token, delivered))
    }

    /// Counts the send against the token's window (kept in the database: a restart does not
    /// reset the guard); refuses it past the limit, counting nothing.
    private func admit(_ token: String) async throws(FCMError) {
        let time = now().timeIntervalSince1970
        let window = configuration.rateWindow, limit = configuration.rateLimit
        let admitted: Bool
        do {
            admitted = try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM recentSend WHERE token = ? AND sentAt <= ?").execute(arguments: [token, time - window])
                let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM recentSend WHERE token = ?"), arguments: [token]) ?? 0
                guard count < limit else { return false }
                try db.cachedStatement(sql: "INSERT INTO recentSend (token, sentAt) VALUES (?, ?)").execute(arguments: [token, time])
                return true
            }
        } catch {
            throw .internalError("the push service's storage failed")
        }
        guard admitted else {
            throw .quotaExceeded("Too many messages to this device: at most \(limit) in \(Int(window)) s (push bombing guard).")
        }
    }
}

struct InboxRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "inbox"
    var id: String
    var token: String
    var name: String
    var message: PushMessage
    var receivedAt: Date

    init(_ message: PushService.InboxMessage, token: String) {
        id = message.id
        self.token = token
        name = message.name
        self.message = message.message
        receivedAt = message.receivedAt
    }

    var inboxMessage: PushService.InboxMessage {
        PushService.InboxMessage(id: id, name: name, receivedAt: receivedAt, message: message)
    }
}
