import Foundation
import GRDB
import Storage

/// The SMS gateway's storage: the account senders authenticate with, every text it was handed
/// (the SMS log) and each number's rate window, read and written through the named operations
/// below and nowhere else. The texts a phone received are the phone's (its Messages app's).
public struct SMSStore: Store {
    public let database: StoreDatabase

    public init(database: StoreDatabase) { self.database = database }

    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("sms-v1") { db in
            for statement in tables(numbering: "INTEGER PRIMARY KEY") { try db.execute(sql: statement) }
        }
        return migrator
    }

    public static let postgresMigrations = [PostgresMigration("sms-pg-v1", tables(numbering: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"))]

    /// Dates as GRDB's text, the log numbered by its engine's own sequence: the same tables on both.
    private static func tables(numbering: String) -> [String] {
        [
            "CREATE TABLE smsAccount (sid TEXT PRIMARY KEY, authToken TEXT NOT NULL, createdAt TEXT NOT NULL)",
            """
            CREATE TABLE smsLog (seq \(numbering), id TEXT NOT NULL UNIQUE, receivedAt TEXT NOT NULL, door TEXT NOT NULL,
                sender TEXT NOT NULL, recipient TEXT, originator TEXT, body TEXT, outcome TEXT NOT NULL, phoneId TEXT, errorCode TEXT,
                errorMessage TEXT)
            """,
            "CREATE INDEX smsLog_on_recipient ON smsLog (recipient)",
            "CREATE TABLE smsWindow (number TEXT PRIMARY KEY, sentAt TEXT NOT NULL)",
        ]
    }

    /// The account, nil before anyone asked for it.
    func account() async throws -> SMSAccount? {
        try await read { sql in try sql.fetchOne(SMSAccount.self, "SELECT * FROM smsAccount LIMIT 1", []) }
    }

    /// Keeps `account` unless there is one already, and returns the one kept: two first asks at
    /// once both get the same credentials.
    func keep(_ account: SMSAccount) async throws -> SMSAccount {
        try await write { sql in
            if let kept = try sql.fetchOne(SMSAccount.self, "SELECT * FROM smsAccount LIMIT 1", []) { return kept }
            try sql.execute(
                "INSERT INTO smsAccount (sid, authToken, createdAt) VALUES (?, ?, ?)",
                [account.sid, account.authToken, StoredDate(account.createdAt)])
            return account
        }
    }

    /// Counts a text to `number` against its window (`SendWindow`), or refuses it, counting
    /// nothing: then the seconds until the window's oldest text leaves it.
    func admit(number: String, at time: Date, window: TimeInterval, limit: Int) async throws -> TimeInterval? {
        let sends = SendWindow(table: "smsWindow", keyColumn: "number", window: window, limit: limit)
        return try await write { sql in try sends.admit(number, at: time, sql) }
    }

    /// A new log entry; the oldest past `limit` leave.
    func log(_ entry: SMSLogEntry, limit: Int) async throws {
        try await write { sql in
            try sql.execute(
                """
                INSERT INTO smsLog (id, receivedAt, door, sender, recipient, originator, body, outcome, phoneId, errorCode, errorMessage)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    entry.id, StoredDate(entry.receivedAt), entry.door.rawValue, entry.sender, entry.to, entry.from, entry.text,
                    entry.outcome.rawValue, entry.phoneId, entry.error?.code, entry.error?.message,
                ])
            let newest = try sql.fetchOne(Int64.self, "SELECT max(seq) FROM smsLog", []) ?? 0
            try sql.execute("DELETE FROM smsLog WHERE seq <= ?", [newest - Int64(limit)])
        }
    }

    /// A held-back text's outcome once it was delivered (or found no phone).
    func settle(id: String, _ outcome: SMSOutcome, phoneId: String?) async throws {
        try await write { sql in try sql.execute("UPDATE smsLog SET outcome = ?, phoneId = ? WHERE id = ?", [outcome.rawValue, phoneId, id]) }
    }

    /// Newest first: to one number when given.
    func log(to number: String?, limit: Int) async throws -> [SMSLogEntry] {
        try await readAll { sql in
            try sql.fetchAll(
                SMSLogEntry.self, "SELECT * FROM smsLog WHERE CAST(? AS TEXT) IS NULL OR recipient = ? ORDER BY seq DESC LIMIT ?",
                [number, number, limit])
        }
    }

    func entry(id: String) async throws -> SMSLogEntry? {
        try await read { sql in try sql.fetchOne(SMSLogEntry.self, "SELECT * FROM smsLog WHERE id = ?", [id]) }
    }

    /// The log and the rate windows; the account stays, so a sender set up with it works on.
    public func eraseTexts() async throws {
        try await erase(keeping: ["smsAccount"])
    }
}

/// The credentials senders authenticate with: Twilio's account SID and auth token.
public struct SMSAccount: Codable, Sendable, Equatable, FetchableRecord {
    public var sid: String
    public var authToken: String
    public var createdAt: Date
}
