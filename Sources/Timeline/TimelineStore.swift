import Foundation
import GRDB
import Storage
import Synchronization

/// One exchange as the timeline keeps it: redacted bodies, and the session and phone it belongs
/// to (a delivery's phone by its push token, its session by the message the backend sent).
struct HopRecord: Codable, FetchableRecord, MutablePersistableRecord, StoredDatesRecord, Sendable {
    static let databaseTableName = "hop"
    var id: Int64?
    var at: Date
    var source: String
    var target: String
    var method: String
    var url: String
    var status: Int?
    var durationMs: Double
    var attempt: Int
    var fault: String?
    var error: String?
    var requestBody: String?
    var responseBody: String?
    var sessionId: String?
    var phoneId: String?
    var pushToken: String?
    var messageId: String?
    var automaticRule: String?

    /// Every exchange recorded; `id` is numbered by SQLite.
    static let insertion = NamedInsert<HopRecord>(
        into: databaseTableName, numbering: "id",
        [
            "at": { StoredDate($0.at) }, "source": { $0.source }, "target": { $0.target }, "method": { $0.method }, "url": { $0.url },
            "status": { $0.status }, "durationMs": { $0.durationMs }, "attempt": { $0.attempt }, "fault": { $0.fault },
            "error": { $0.error }, "requestBody": { $0.requestBody }, "responseBody": { $0.responseBody },
            "sessionId": { $0.sessionId }, "phoneId": { $0.phoneId }, "pushToken": { $0.pushToken }, "messageId": { $0.messageId },
            "automaticRule": { $0.automaticRule },
        ])
}

/// The timeline's storage, read and written through the named operations below and nowhere
/// else. Each session and each phone keeps its newest exchanges up to its bound.
public struct TimelineStore: Store {
    public let database: StoreDatabase

    public init(database: StoreDatabase) { self.database = database }

    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("timeline-v1") { db in
            try db.create(table: "hop") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("at", .datetime).notNull()
                t.column("source", .text).notNull()
                t.column("target", .text).notNull()
                t.column("method", .text).notNull()
                t.column("url", .text).notNull()
                t.column("status", .integer)
                t.column("durationMs", .double).notNull()
                t.column("attempt", .integer).notNull()
                t.column("fault", .text)
                t.column("error", .text)
                t.column("requestBody", .text)
                t.column("responseBody", .text)
                t.column("sessionId", .text)
                t.column("phoneId", .text)
                t.column("pushToken", .text)
                t.column("messageId", .text)
            }
            try db.create(index: "hop_session", on: "hop", columns: ["sessionId", "id"])
            try db.create(index: "hop_phone", on: "hop", columns: ["phoneId", "id"])
            try db.create(index: "hop_token", on: "hop", columns: ["pushToken", "id"])
            try db.create(index: "hop_message", on: "hop", columns: ["messageId"])
        }
        migrator.registerMigration("timeline-v2-automatic") { db in
            try db.alter(table: "hop") { t in t.add(column: "automaticRule", .text) }
        }
        return migrator
    }

    /// The table `migrator` makes, as PostgreSQL's: dates as the same text.
    public static let postgresMigrations = [
        PostgresMigration(
            "timeline-v1",
            [
                """
                CREATE TABLE hop (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at TEXT NOT NULL, source TEXT NOT NULL,
                    target TEXT NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL, status BIGINT, durationMs DOUBLE PRECISION NOT NULL,
                    attempt BIGINT NOT NULL, fault TEXT, error TEXT, requestBody TEXT, responseBody TEXT, sessionId TEXT, phoneId TEXT,
                    pushToken TEXT, messageId TEXT, automaticRule TEXT)
                """,
                "CREATE INDEX hop_session ON hop (sessionId, id)",
                "CREATE INDEX hop_phone ON hop (phoneId, id)",
                "CREATE INDEX hop_token ON hop (pushToken, id)",
                "CREATE INDEX hop_message ON hop (messageId)",
            ])
    ]

    /// Writes one batch in one transaction, oldest first: a delivery takes the session of the
    /// send that carried its message (whichever is written first), then every session, phone
    /// and push token of the batch is cut back to its bound. Returns the batch as stored.
    /// `drain` hands the batch over inside the transaction, so batches are written in order; a
    /// transaction run again (a lost race) writes the batch it drained first.
    func append(bounds: TimelineBounds, _ drain: @escaping @Sendable () -> [HopRecord]) async throws -> [HopRecord] {
        let drained = Mutex<[HopRecord]?>(nil)
        return try await write { sql in
            var batch = drained.withLock { taken in
                if taken == nil { taken = drain() }
                return taken ?? []
            }
            for index in batch.indices {
                if batch[index].sessionId == nil, let message = batch[index].messageId {
                    batch[index].sessionId = try sql.fetchOne(
                        String.self, "SELECT sessionId FROM hop WHERE messageId = ? AND sessionId IS NOT NULL LIMIT 1", [message])
                }
                batch[index].id = try HopRecord.insertion.run(batch[index], sql)
                if let session = batch[index].sessionId, let message = batch[index].messageId {
                    try sql.execute("UPDATE hop SET sessionId = ? WHERE messageId = ? AND sessionId IS NULL", [session, message])
                }
            }
            for ids in Self.noticeLists(batch.compactMap(\.id)) { try sql.announce(StoreNotice(Self.hopsTopic, ids)) }
            for (column, bound) in [("sessionId", bounds.perSession), ("phoneId", bounds.perPhone), ("pushToken", bounds.perPhone)] {
                let keys = Set(batch.compactMap { hop in column == "sessionId" ? hop.sessionId : column == "phoneId" ? hop.phoneId : hop.pushToken })
                for key in keys {
                    try sql.execute(
                        "DELETE FROM hop WHERE \(column) = ? AND id <= (SELECT id FROM hop WHERE \(column) = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
                        [key, key, bound])
                }
            }
            return batch
        }
    }

    /// What a batch announces to the other instances: its hops' ids, comma-separated, in as
    /// few notices as NOTIFY's payload (8,000 bytes) allows.
    static let hopsTopic = "hops"

    static func noticeLists(_ ids: [Int64], limit: Int = 7_000) -> [String] {
        var lists: [String] = []
        var current = ""
        for id in ids {
            let text = String(id)
            if !current.isEmpty, current.utf8.count + 1 + text.utf8.count > limit {
                lists.append(current)
                current = ""
            }
            current += current.isEmpty ? text : "," + text
        }
        if !current.isEmpty { lists.append(current) }
        return lists
    }

    /// The hops with these ids, oldest first (those another instance announced).
    func hops(ids: [Int64]) async throws -> [HopRecord] {
        guard !ids.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        return try await readAll { sql in
            try sql.fetchAll(HopRecord.self, "SELECT * FROM hop WHERE id IN (\(placeholders)) ORDER BY at, id", ids.map { $0 })
        }
    }

    /// A session's exchanges, oldest first (by when each began: a delivery is recorded by
    /// whoever hears of it, maybe before the send that made it is).
    func hops(sessionId: String) async throws -> [HopRecord] {
        try await readAll { sql in try sql.fetchAll(HopRecord.self, "SELECT * FROM hop WHERE sessionId = ? ORDER BY at, id", [sessionId]) }
    }

    /// A phone's exchanges (its requests, and the pushes to its token), oldest first.
    func hops(phoneId: String, pushToken: String) async throws -> [HopRecord] {
        try await readAll { sql in
            try sql.fetchAll(HopRecord.self, "SELECT * FROM hop WHERE phoneId = ? OR pushToken = ? ORDER BY at, id", [phoneId, pushToken])
        }
    }
}
