import Foundation
import GRDB
import SQLiteStore

/// What each console's push composer keeps between reloads, as the page's own JSON; the
/// `composerLimit` consoles saved last are kept, so made-up console names cannot fill the disk.
extension PushStore {
    static let composerLimit = 100

    func composerState(console: String) async throws -> String? {
        try await writer.read { db in
            try String.fetchOne(db, sql: "SELECT state FROM composerState WHERE console = ?", arguments: [console])
        }
    }

    func saveComposerState(console: String, json: String, at time: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql:
                    "INSERT INTO composerState (console, state, updatedAt) VALUES (?, ?, ?) ON CONFLICT (console) DO UPDATE SET state = excluded.state, updatedAt = excluded.updatedAt",
                arguments: [console, json, StoredDate(time)])
            try db.execute(
                sql: "DELETE FROM composerState WHERE console NOT IN (SELECT console FROM composerState ORDER BY updatedAt DESC, console LIMIT ?)",
                arguments: [Self.composerLimit])
        }
    }
}
