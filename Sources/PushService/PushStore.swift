import Foundation
import GRDB
import OutOfBand
import Storage

/// The push service's storage: registrations, inboxes, each token's rate window and the senders'
/// service accounts, read and written through the named operations below and nowhere else.
public struct PushStore: Store {
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
        migrator.registerMigration("push-v5-send-window-row") { db in
            // one row a token (`admit`), the sends it still counts carried over
            try db.execute(sql: "CREATE TABLE sendWindow (token TEXT PRIMARY KEY, sentAt TEXT NOT NULL)")
            try db.execute(
                sql: """
                    INSERT INTO sendWindow (token, sentAt)
                    SELECT token, group_concat(sentAt, ' ') FROM (SELECT token, sentAt FROM recentSend ORDER BY token, sentAt) GROUP BY token
                    """)
            try db.execute(sql: "DROP TABLE recentSend")
        }
        return migrator
    }

    /// The tables `migrator` makes, as PostgreSQL's: dates as the same text, booleans as 0 or 1.
    public static let postgresMigrations = [
        PostgresMigration(
            "push-v1",
            [
                "CREATE TABLE registration (token TEXT PRIMARY KEY, createdAt TEXT NOT NULL, retiredAt TEXT)",
                """
                CREATE TABLE inbox (id TEXT PRIMARY KEY, token TEXT NOT NULL REFERENCES registration ON DELETE CASCADE,
                    name TEXT NOT NULL, message TEXT NOT NULL, receivedAt TEXT NOT NULL)
                """,
                "CREATE INDEX inbox_on_token ON inbox (token)",
                "CREATE TABLE recentSend (token TEXT NOT NULL, sentAt DOUBLE PRECISION NOT NULL)",
                "CREATE INDEX recentSend_on_token ON recentSend (token)",
                """
                CREATE TABLE pushLog (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id TEXT NOT NULL UNIQUE,
                    receivedAt TEXT NOT NULL, sender TEXT NOT NULL, target TEXT, outcome TEXT NOT NULL, name TEXT, error TEXT,
                    rule TEXT, payloadToken TEXT, request TEXT NOT NULL, truncated BIGINT NOT NULL)
                """,
                "CREATE INDEX pushLog_on_target ON pushLog (target)",
                "CREATE TABLE composerState (console TEXT PRIMARY KEY, state TEXT NOT NULL, updatedAt TEXT NOT NULL)",
                """
                CREATE TABLE serviceAccount (project TEXT PRIMARY KEY, keyId TEXT NOT NULL, clientId TEXT NOT NULL,
                    privateKey BYTEA NOT NULL, createdAt TEXT NOT NULL)
                """,
            ]),
        PostgresMigration(
            "push-pg-v2-send-window-row",
            [
                // half of each page left free, so that a token's row is rewritten in its page
                // (no new index entry, which another token's read could collide with)
                "CREATE TABLE sendWindow (token TEXT PRIMARY KEY, sentAt TEXT NOT NULL) WITH (fillfactor = 50)",
                "INSERT INTO sendWindow (token, sentAt) SELECT token, string_agg(sentAt::text, ' ' ORDER BY sentAt) FROM recentSend GROUP BY token",
                "DROP TABLE recentSend",
            ]),
    ]

    func register(tokens: [String], at time: Date) async throws {
        try await write { sql in
            for token in tokens {
                try sql.execute("INSERT INTO registration (token, createdAt) VALUES (?, ?) ON CONFLICT DO NOTHING", [token, StoredDate(time)])
            }
        }
    }

    func retire(token: String, at time: Date) async throws {
        try await write { sql in
            try sql.execute("UPDATE registration SET retiredAt = ? WHERE token = ? AND retiredAt IS NULL", [StoredDate(time), token])
        }
    }

    /// A token the service issued and has not retired.
    func isRegistered(token: String) async throws -> Bool {
        try await read { sql in try sql.fetchOne(Bool.self, "SELECT retiredAt IS NULL FROM registration WHERE token = ?", [token]) ?? false }
    }

    /// The live token that carries the FID (`FID:…`), found on the token's own index: every such
    /// token sorts between `FID:` and `FID;` (the next character), and a FID has no colon.
    func registeredToken(fid: String) async throws -> String? {
        precondition(FirebaseInstallationID.isWellFormed(fid), "a FID is checked before it is looked up")
        return try await read { sql in
            try sql.fetchOne(
                String.self, "SELECT token FROM registration WHERE token > ? AND token < ? AND retiredAt IS NULL LIMIT 1", [fid + ":", fid + ";"])
        }
    }

    /// Counts a send against the token's window (`SendWindow`), or refuses it, counting nothing:
    /// then the seconds until its oldest send leaves the window.
    func admit(token: String, at time: Date, window: TimeInterval, limit: Int) async throws -> TimeInterval? {
        let sends = SendWindow(table: "sendWindow", keyColumn: "token", window: window, limit: limit)
        return try await write { sql in try sends.admit(token, at: time, sql) }
    }

    /// Puts a message in the inbox and, in the same transaction, its outcome in the log: a new
    /// entry, or the outcome of the one made when it was held back.
    func deliver(_ message: PushService.InboxMessage, to token: String, log: PushStore.LogWrite?) async throws {
        try await write { sql in
            try InboxRecord.insertion.run(InboxRecord(message, token: token), sql)
            try log?.apply(sql)
            try sql.announce(StoreNotice(Self.inboxTopic, message.id))
        }
    }

    /// What `deliver` announces: a message is waiting in a phone's inbox.
    static let inboxTopic = "inbox"

    /// A waiting message and its token, by the message's id; nil once it was opened.
    func inboxMessage(id: String) async throws -> (token: String, message: PushService.InboxMessage)? {
        try await read { sql in
            try sql.fetchOne(InboxRecord.self, "SELECT * FROM inbox WHERE id = ?", [id]).map { ($0.token, $0.inboxMessage) }
        }
    }

    /// The token's waiting messages, oldest first.
    func inbox(token: String) async throws -> [PushService.InboxMessage] {
        try await read { sql in
            try sql.fetchAll(InboxRecord.self, "SELECT * FROM inbox WHERE token = ? ORDER BY receivedAt, id", [token]).map(\.inboxMessage)
        }
    }

    /// Removes one message (it was opened) and returns it; nil when there is no such message.
    func take(token: String, id: String) async throws -> PushService.InboxMessage? {
        try await write { sql in
            guard let record = try sql.fetchOne(InboxRecord.self, "SELECT * FROM inbox WHERE token = ? AND id = ?", [token, id]) else {
                return nil
            }
            try sql.execute("DELETE FROM inbox WHERE id = ?", [record.id])
            try LogWrite.outcome(id: id, .opened).apply(sql)
            return record.inboxMessage
        }
    }

    func clearInbox(token: String) async throws {
        try await write { sql in try sql.execute("DELETE FROM inbox WHERE token = ?", [token]) }
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
