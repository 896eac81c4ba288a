import GRDB

/// What every part's store is: one SQLite database behind named operations, migrated as the store
/// is made. Opening it the same way for all three parts keeps their promises the same.
public protocol SQLiteStore: Sendable {
    /// Takes the writer and migrates it.
    init(_ writer: any DatabaseWriter) throws
}

extension SQLiteStore {
    /// A file in WAL mode with `synchronous = FULL`: the counters that guard secrets, the inboxes
    /// and the phones' accounts survive a power loss, not only a crash (GRDB's pool would leave
    /// it at NORMAL).
    public static func open(path: String) throws -> Self {
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        return try Self(pool)
    }

    /// Nothing on disk: `--in-memory` and tests.
    public static func inMemory() throws -> Self {
        try Self(DatabaseQueue())
    }
}
