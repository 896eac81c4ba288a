import Foundation
import GRDB
import Storage

/// The push log's operations: one insert per message received, outcome updates by id, reads
/// newest first with filters, and a bound on its size.
extension PushStore {
    /// A change to the log, made in the transaction of the change it records.
    enum LogWrite: Sendable {
        /// A new entry; the oldest past `limit` leave.
        case insert(PushLogEntry, limit: Int)
        /// A message's new outcome.
        case outcome(id: String, PushOutcome)

        func apply(_ sql: any StoreSQL) throws {
            switch self {
            case .insert(let entry, let limit):
                let seq = try PushLogRecord.insertion.run(entry, sql) ?? 0
                // seq grows by one per entry: everything `limit` behind the newest is past the
                // bound. Trimmed at every entry, two pushes at once delete the same oldest row,
                // and on PostgreSQL one of them loses its race and runs again: trimmed every
                // `trimEvery` entries, the log holds up to that many more, which its reads
                // (`log`, of the newest `limit`) never show.
                if seq % PushStore.trimEvery == 0 { try sql.execute("DELETE FROM pushLog WHERE seq <= ?", [seq - Int64(limit)]) }
            case .outcome(let id, let outcome):
                try sql.execute("UPDATE pushLog SET outcome = ? WHERE id = ?", [outcome.rawValue, id])
            }
        }
    }

    /// Entries between two trims of the log.
    public static let trimEvery: Int64 = 64

    func writeLog(_ change: LogWrite) async throws {
        try await write { sql in try change.apply(sql) }
    }

    /// A message another instance logged as waiting in the inbox was shown at once by a screen
    /// open here; one opened meanwhile stays opened.
    func shownAsBanner(id: String) async throws {
        try await write { sql in
            try sql.execute(
                "UPDATE pushLog SET outcome = ? WHERE id = ? AND outcome = ?", [PushOutcome.banner.rawValue, id, PushOutcome.inbox.rawValue])
        }
    }

    /// Newest first, `limit` at most, of the newest `bound` entries (the log's size: entries
    /// past it may wait for the next trim, but are gone to every read); nil filters take everything.
    func log(targets: [String]?, outcome: PushOutcome?, limit: Int, bound: Int) async throws -> [PushLogEntry] {
        let targets = targets ?? []
        let byTarget = targets.isEmpty ? "" : "target IN (\(targets.map { _ in "?" }.joined(separator: ", "))) AND "
        return try await readAll { sql in
            try sql.fetchAll(
                PushLogRecord.self,
                "SELECT * FROM pushLog WHERE seq > (SELECT COALESCE(MAX(seq), 0) FROM pushLog) - ? AND \(byTarget)"
                    + "(CAST(? AS TEXT) IS NULL OR outcome = ?) ORDER BY seq DESC LIMIT ?",
                [bound] + targets.map { $0 as (any DatabaseValueConvertible)? } + [outcome?.rawValue, outcome?.rawValue, limit]
            ).map(\.entry)
        }
    }

    func clearLog() async throws {
        try await write { sql in try sql.execute("DELETE FROM pushLog", []) }
    }
}

/// A log entry as its row; `seq` orders the rows and is the bound's measure.
struct PushLogRecord: Codable, FetchableRecord, PersistableRecord, StoredDatesRecord {
    static let databaseTableName = "pushLog"
    var entry: PushLogEntry

    init(_ entry: PushLogEntry) { self.entry = entry }

    init(from decoder: any Decoder) throws { entry = try PushLogEntry(from: decoder) }
    func encode(to encoder: any Encoder) throws { try entry.encode(to: encoder) }
}

extension PushLogRecord {
    /// Every message received; `seq` is numbered by the database.
    static let insertion = NamedInsert<PushLogEntry>(
        into: databaseTableName, numbering: "seq",
        [
            "id": { $0.id }, "receivedAt": { StoredDate($0.receivedAt) }, "sender": { $0.sender }, "target": { $0.target },
            "outcome": { $0.outcome.rawValue }, "name": { $0.name }, "error": { $0.error }, "rule": { $0.rule?.rawValue },
            "payloadToken": { $0.payloadToken }, "request": { $0.request }, "truncated": { $0.truncated },
        ])
}
