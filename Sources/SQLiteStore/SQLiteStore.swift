import GRDB

/// What every part's store is: one SQLite database behind named operations, migrated as the store
/// is made. Opening it the same way for all parts keeps their promises the same; a store says
/// only what its schema is.
public protocol SQLiteStore: Sendable {
    /// The store's schema: migrations named once and never changed after they shipped.
    static var migrator: DatabaseMigrator { get }
    /// Takes a database already migrated; `init(_:)` is the way in.
    init(database: StoreDatabase)
    var database: StoreDatabase { get }
}

/// A store's database: its writer, and the group commit its writes share.
public struct StoreDatabase: Sendable {
    /// For the checks every store shares (`state()`); a store's own SQL stays in its named operations.
    public let writer: any DatabaseWriter
    /// Writes that arrive together share a commit through it.
    public let commits: GroupCommit
}

/// What a committed write survives.
public enum Durability: String, Sendable {
    /// Synced at every commit: nothing acknowledged is lost, even to a power loss.
    case powerLoss = "FULL"
    /// Synced at checkpoints: a killed process loses nothing committed, a power loss may lose the
    /// last commits. For a record kept to be looked at (the timeline), where a sync at every
    /// batch would cost more than the record is worth.
    case processCrash = "NORMAL"
}

/// A write refused because the disk (or the database's page limit) is full: the one storage
/// failure the operator must fix, so the edge says it apart (507) from the rest (503).
public func isStorageFull(_ error: any Error) -> Bool {
    (error as? DatabaseError)?.resultCode == .SQLITE_FULL
}

/// A failure of the storage itself (the disk, the file, memory), not of what a write asked for (a
/// constraint, a refusal of the caller's): what makes a store unready.
func isStorageFailure(_ error: any Error) -> Bool {
    guard let code = (error as? DatabaseError)?.resultCode else { return false }
    return [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_NOMEM, .SQLITE_PERM]
        .contains(code)
}

/// How a store's database stands, as `/ready` reports it.
public struct DatabaseState: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case ok, failing
    }
    public var status: Status
    /// `file` or `memory`.
    public var storage: String
    /// What failed, when it failed.
    public var message: String?
}

extension SQLiteStore {
    /// Takes the writer and migrates it.
    public init(_ writer: any DatabaseWriter) throws {
        try Self.migrator.migrate(writer)
        self.init(database: StoreDatabase(writer: writer, commits: GroupCommit(writer)))
    }

    public var writer: any DatabaseWriter { database.writer }
    public var commits: GroupCommit { database.commits }

    /// A file in WAL mode. With `.powerLoss` (`synchronous = FULL`) the counters that guard
    /// secrets, the inboxes and the phones' accounts survive a power loss, not only a crash
    /// (GRDB's pool would leave it at NORMAL).
    public static func open(path: String, durability: Durability = .powerLoss) throws -> Self {
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(durability.rawValue)") }
        return try Self(pool)
    }

    /// Reads the schema through the store's own connection: a database that cannot be read (a
    /// file gone or locked) says so instead of failing the first request that needs it. A store
    /// whose last write failed for want of storage (a full disk) is failing too, until a write
    /// succeeds again: reads alone would call it ready while it refuses every change.
    public func state() async -> DatabaseState {
        let storage = writer is DatabasePool ? "file" : "memory"
        if let failure = commits.lastWriteFailure {
            return DatabaseState(status: .failing, storage: storage, message: "its last write failed: \(failure)")
        }
        do {
            _ = try await writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
            return DatabaseState(status: .ok, storage: storage)
        } catch {
            return DatabaseState(status: .failing, storage: storage, message: "\(error)")
        }
    }

    /// Empties every table but `keeping` (and the migrations' record), in one transaction: the
    /// schema stays, so the store works on at once (`POST /api/reset`, `authphone reset`).
    public func erase(keeping: Set<String> = []) async throws {
        try await writer.write { db in try Self.erase(db, keeping: keeping) }
    }

    /// The same inside a transaction of the caller's, which fills the tables again (an import
    /// with `--replace`): a failure later in it leaves the old rows.
    public static func erase(_ db: Database, keeping: Set<String> = []) throws {
        // rows of one table may point into another: checked once all are gone
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'")
        for table in tables where !keeping.contains(table) {
            try db.execute(sql: "DELETE FROM \(table.quotedDatabaseIdentifier)")
        }
    }

    /// Reads on the caller's own thread. A read of a few indexed rows takes microseconds; handing
    /// it to the database's queue and back would cost two thread wake-ups, more than the read.
    /// In WAL mode a reader waits for no writer, so the caller is not held behind a commit's sync.
    /// For reads that stay small: a read of a whole table goes through `writer.read` and its queue.
    public func readHere<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.read(body)
    }

    /// Nothing on disk: `--in-memory` and tests.
    public static func inMemory() throws -> Self {
        try Self(DatabaseQueue())
    }
}
