import Foundation
import GRDB
import OutOfBand
import SQLiteStore

/// The push service's storage: registrations, inboxes, each token's rate window and the senders'
/// service accounts, read and written through the named operations below and nowhere else.
public struct PushStore: SQLiteStore {
    public let database: StoreDatabase

    public init(database: StoreDatabase) { self.database = database }

    public static var migrator: DatabaseMigrator {
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
        migrator.registerMigration("push-v3-log-and-composer") { db in
            // every message received, newest last by seq; kept to a bounded number of rows
            try db.create(table: "pushLog") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("id", .text).notNull().unique()
                t.column("receivedAt", .datetime).notNull()
                t.column("sender", .text).notNull()
                t.column("target", .text).indexed()
                t.column("outcome", .text).notNull()
                t.column("name", .text)
                t.column("error", .text)
                t.column("rule", .text)
                t.column("payloadToken", .text)
                t.column("request", .text).notNull()
                t.column("truncated", .boolean).notNull()
            }
            // what each console's push composer keeps: its templates and last message, as its JSON
            try db.create(table: "composerState") { t in
                t.primaryKey("console", .text)
                t.column("state", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("push-v4-service-accounts") { db in
            // each project's sender key (PKCS #8 DER), made on first ask and kept: a reset keeps it too
            try db.create(table: "serviceAccount") { t in
                t.primaryKey("project", .text)
                t.column("keyId", .text).notNull()
                t.column("clientId", .text).notNull()
                t.column("privateKey", .blob).notNull()
                t.column("createdAt", .datetime).notNull()
            }
        }
        return migrator
    }

    func register(tokens: [String], at time: Date) async throws {
        try await commits.write { db in
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO registration (token, createdAt) VALUES (?, ?)")
            for token in tokens { try insert.execute(arguments: [token, StoredDate(time)]) }
        }
    }

    func retire(token: String, at time: Date) async throws {
        try await commits.write { db in
            try db.execute(sql: "UPDATE registration SET retiredAt = ? WHERE token = ? AND retiredAt IS NULL", arguments: [StoredDate(time), token])
        }
    }

    /// A token the service issued and has not retired.
    func isRegistered(token: String) async throws -> Bool {
        try readHere { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT retiredAt IS NULL FROM registration WHERE token = ?"), arguments: [token]) ?? false
        }
    }

    /// The live token that carries the FID (`FID:…`), found on the token's own index: every such
    /// token sorts between `FID:` and `FID;` (the next character), and a FID has no colon.
    func registeredToken(fid: String) async throws -> String? {
        precondition(FirebaseInstallationID.isWellFormed(fid), "a FID is checked before it is looked up")
        return try readHere { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT token FROM registration WHERE token > ? AND token < ? AND retiredAt IS NULL LIMIT 1"),
                arguments: [fid + ":", fid + ";"])
        }
    }

    /// Counts a send against the token's window (nil), or refuses it, counting nothing, when the
    /// window holds `limit` sends already: then the seconds until its oldest send leaves it.
    func admit(token: String, at time: Date, window: TimeInterval, limit: Int) async throws -> TimeInterval? {
        let seconds = time.timeIntervalSince1970
        return try await commits.write { db in
            try db.cachedStatement(sql: "DELETE FROM recentSend WHERE token = ? AND sentAt <= ?").execute(arguments: [token, seconds - window])
            let (count, oldest) =
                try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*), MIN(sentAt) FROM recentSend WHERE token = ?"), arguments: [token]
                ).map { ($0[0] as Int, $0[1] as Double?) } ?? (0, nil)
            guard count < limit else { return (oldest ?? seconds) + window - seconds }
            try db.cachedStatement(sql: "INSERT INTO recentSend (token, sentAt) VALUES (?, ?)").execute(arguments: [token, seconds])
            return nil
        }
    }

    /// Puts a message in the inbox and, in the same transaction, its outcome in the log: a new
    /// entry, or the outcome of the one made when it was held back.
    func deliver(_ message: PushService.InboxMessage, to token: String, log: PushStore.LogWrite?) async throws {
        try await commits.write { db in
            try InboxRecord.insertion.run(InboxRecord(message, token: token), db)
            try log?.apply(db)
        }
    }

    /// The token's waiting messages, oldest first.
    func inbox(token: String) async throws -> [PushService.InboxMessage] {
        try readHere { db in
            try InboxRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM inbox WHERE token = ? ORDER BY receivedAt, id"), arguments: [token])
                .map(\.inboxMessage)
        }
    }

    /// Removes one message (it was opened) and returns it; nil when there is no such message.
    func take(token: String, id: String) async throws -> PushService.InboxMessage? {
        try await commits.write { db in
            guard
                let record = try InboxRecord.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM inbox WHERE token = ? AND id = ?"),
                    arguments: [token, id])
            else { return nil }
            // By its key alone: GRDB's `delete` would encode the whole record, message and all.
            try db.cachedStatement(sql: "DELETE FROM inbox WHERE id = ?").execute(arguments: [record.id])
            try LogWrite.outcome(id: id, .opened).apply(db)
            return record.inboxMessage
        }
    }

    func clearInbox(token: String) async throws {
        try await commits.write { db in try db.execute(sql: "DELETE FROM inbox WHERE token = ?", arguments: [token]) }
    }
}

struct InboxRecord: Codable, FetchableRecord, PersistableRecord, StoredDatesRecord {
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

    static let insertion = NamedInsert<InboxRecord>(
        into: databaseTableName,
        [
            "id": { $0.id }, "token": { $0.token }, "name": { $0.name }, "message": { try jsonText($0.message) },
            "receivedAt": { StoredDate($0.receivedAt) },
        ])

    var inboxMessage: PushService.InboxMessage {
        PushService.InboxMessage(id: id, name: name, receivedAt: receivedAt, message: message)
    }
}
