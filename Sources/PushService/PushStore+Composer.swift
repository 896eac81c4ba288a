import Foundation
import Storage

/// What each console's push composer keeps between reloads, as the page's own JSON; the
/// `composerLimit` consoles saved last are kept, so made-up console names cannot fill the disk.
extension PushStore {
    static let composerLimit = 100

    func composerState(console: String) async throws -> String? {
        try await read { sql in try sql.fetchOne(String.self, "SELECT state FROM composerState WHERE console = ?", [console]) }
    }

    func saveComposerState(console: String, json: String, at time: Date) async throws {
        try await write { sql in
            try sql.execute(
                "INSERT INTO composerState (console, state, updatedAt) VALUES (?, ?, ?) ON CONFLICT (console) DO UPDATE SET state = excluded.state, updatedAt = excluded.updatedAt",
                [console, json, StoredDate(time)])
            try sql.execute(
                "DELETE FROM composerState WHERE console NOT IN (SELECT console FROM composerState ORDER BY updatedAt DESC, console LIMIT ?)",
                [Self.composerLimit])
        }
    }
}
