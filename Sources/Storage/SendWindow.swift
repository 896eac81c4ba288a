import Foundation

/// A sliding window of sends a key (a push token, a phone number): what a flood guard counts.
/// A key's window is one row, its sends' times oldest first, so that counting a send rewrites that
/// row alone: on PostgreSQL two keys' sends never collide (rows of their own, added to an index,
/// would: its pages are shared). The table is `(key TEXT PRIMARY KEY, sentAt TEXT NOT NULL)`,
/// its key column named by the store.
public struct SendWindow: Sendable {
    public let table: String
    public let keyColumn: String
    public let window: TimeInterval
    public let limit: Int

    public init(table: String, keyColumn: String, window: TimeInterval, limit: Int) {
        self.table = table
        self.keyColumn = keyColumn
        self.window = window
        self.limit = limit
    }

    /// Counts a send against the key's window (nil), or refuses it, counting nothing, when the
    /// window holds `limit` sends already: then the seconds until its oldest send leaves it.
    public func admit(_ key: String, at time: Date, _ sql: any StoreSQL) throws -> TimeInterval? {
        let seconds = time.timeIntervalSince1970
        let stored = try sql.fetchOne(String.self, "SELECT sentAt FROM \(table) WHERE \(keyColumn) = ?", [key])
        var sends = (stored ?? "").split(separator: " ").compactMap { Double($0) }.filter { $0 > seconds - window }
        if sends.count >= limit { return (sends.min() ?? seconds) + window - seconds }
        sends.append(seconds)
        sends.sort()
        let text = sends.map { String($0) }.joined(separator: " ")
        if stored == nil {
            try sql.execute("INSERT INTO \(table) (\(keyColumn), sentAt) VALUES (?, ?)", [key, text])
        } else {
            try sql.execute("UPDATE \(table) SET sentAt = ? WHERE \(keyColumn) = ?", [text, key])
        }
        return nil
    }
}
