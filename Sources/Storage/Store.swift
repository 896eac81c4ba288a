import GRDB

/// What every part's store is: its tables behind named operations, on the engine chosen once at
/// start (an SQLite file of its own, or a schema of its own on a shared PostgreSQL), migrated as
/// the store is opened. Opening it the same way for all parts keeps their promises the same; a
/// store says only what its schema is, on each engine.
public protocol Store: Sendable {
    /// The SQLite schema: migrations named once and never changed after they shipped.
    static var migrator: DatabaseMigrator { get }
    /// The PostgreSQL schema: the same tables and columns, in PostgreSQL's types.
    static var postgresMigrations: [PostgresMigration] { get }
    /// Takes a database already migrated; `open`, `inMemory` and `init(_:)` are the ways in.
    init(database: StoreDatabase)
    var database: StoreDatabase { get }
}

/// A store's database on its engine. SQLite's writes share commits (`GroupCommit`); PostgreSQL's
/// each run in a transaction of their own, at SERIALIZABLE.
public struct StoreDatabase: Sendable {
    public enum Engine: Sendable {
        case sqlite(any DatabaseWriter, GroupCommit)
        case postgres(PostgresDatabase)
    }
    public let engine: Engine

    /// `body` in one write transaction; a thrown error rolls back its changes and is thrown here.
    /// It may run more than once (SQLite's lost batch, PostgreSQL's lost race): it must change
    /// nothing but the database.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        switch engine {
        case .sqlite(_, let commits): try await commits.write { try body($0) }
        case .postgres(let postgres): try await postgres.write(body)
        }
    }

    /// A few rows. On SQLite they are read on the caller's own thread: a read of a few indexed
    /// rows takes microseconds, and handing it to the database's queue and back would cost two
    /// thread wake-ups, more than the read. In WAL mode a reader waits for no writer, so the
    /// caller is not held behind a commit's sync.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        switch engine {
        case .sqlite(let writer, _): try Self.readHere(writer, body)
        case .postgres(let postgres): try await postgres.read(body)
        }
    }

    /// GRDB's synchronous read, which an async caller would not otherwise choose.
    private static func readHere<T>(_ writer: any DatabaseWriter, _ body: (any StoreSQL) throws -> T) throws -> T {
        try writer.read { try body($0) }
    }

    /// What the other instances sharing the database change, as they commit it; nil for SQLite,
    /// whose file one process holds.
    public func notices() -> AsyncStream<StoreHearing>? {
        guard case .postgres(let postgres) = engine else { return nil }
        return postgres.notices()
    }

    /// Whole tables (an export): on SQLite on the database's queue, so the caller's thread is not held.
    public func readAll<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        switch engine {
        case .sqlite(let writer, _): try await writer.read { try body($0) }
        case .postgres(let postgres): try await postgres.read(body)
        }
    }
}

/// What a committed write survives on SQLite.
public enum Durability: String, Sendable {
    /// Synced at every commit: nothing acknowledged is lost, even to a power loss.
    case powerLoss = "FULL"
    /// Synced at checkpoints: a killed process loses nothing committed, a power loss may lose the
    /// last commits. For a record kept to be looked at (the timeline), where a sync at every
    /// batch would cost more than the record is worth.
    case processCrash = "NORMAL"
}

/// How a store's database stands, as `/ready` reports it.
public struct DatabaseState: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case ok, failing
    }
    public var status: Status
    /// `file`, `memory` or `postgres`.
    public var storage: String
    /// What failed, when it failed.
    public var message: String?
}

extension Store {
    /// Takes an SQLite writer and migrates it.
    public init(_ writer: any DatabaseWriter) throws {
        try Self.migrator.migrate(writer)
        self.init(database: StoreDatabase(engine: .sqlite(writer, GroupCommit(writer))))
    }

    /// A file in WAL mode. With `.powerLoss` (`synchronous = FULL`) the counters that guard
    /// secrets, the inboxes and the phones' accounts survive a power loss, not only a crash
    /// (GRDB's pool would leave it at NORMAL). A lock another process holds on the file (a
    /// server's checkpoint while `authphone export` reads its folder) is waited for, a few
    /// seconds at most, rather than failing at once with "database is locked".
    public static func open(path: String, durability: Durability = .powerLoss) throws -> Self {
        var configuration = Configuration()
        configuration.busyMode = .timeout(lockWait)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(durability.rawValue)") }
        return try Self(pool)
    }

    /// Seconds a store waits for a lock another process holds on its file.
    static var lockWait: Double { 5 }

    /// Nothing on disk: `--in-memory` and tests.
    public static func inMemory() throws -> Self {
        try Self(DatabaseQueue())
    }

    /// The store's schema on a shared PostgreSQL, migrated.
    public static func open(_ postgres: PostgresDatabase) async throws -> Self {
        try await postgres.migrate(postgresMigrations)
        return Self(database: StoreDatabase(engine: .postgres(postgres)))
    }

    /// SQLite's own writer, for what only SQLite has (its pragmas, its schema's introspection);
    /// nil on PostgreSQL.
    public var sqliteWriter: (any DatabaseWriter)? {
        guard case .sqlite(let writer, _) = database.engine else { return nil }
        return writer
    }

    /// What the store asked of PostgreSQL so far; nil on SQLite.
    public var postgresCounts: DatabaseCounts? {
        guard case .postgres(let postgres) = database.engine else { return nil }
        return postgres.counts
    }

    /// Runs `body` in a write transaction shared with the writes that arrived with it (`StoreDatabase.write`).
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        try await database.write(body)
    }

    /// A few rows (`StoreDatabase.read`).
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        try await database.read(body)
    }

    /// Whole tables (`StoreDatabase.readAll`).
    public func readAll<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        try await database.readAll(body)
    }

    /// Reads the schema through the store's own connection: a database that cannot be read (a
    /// file gone or locked, a server down) says so instead of failing the first request that
    /// needs it. A store whose last write failed for want of storage (a full disk) is failing
    /// too, until a write succeeds again: reads alone would call it ready while it refuses every
    /// change. A database that has not answered within `limit` is failing: a server down would
    /// hold the read for the pool's whole timeout, longer than a readiness probe waits.
    public func state(within limit: Duration = .seconds(1)) async -> DatabaseState {
        let storage: String
        switch database.engine {
        case .sqlite(let writer, let commits):
            storage = writer is DatabasePool ? "file" : "memory"
            if let failure = commits.lastWriteFailure {
                return DatabaseState(status: .failing, storage: storage, message: "its last write failed: \(failure)")
            }
        case .postgres: storage = "postgres"
        }
        return await answer(within: limit, else: { DatabaseState(status: .failing, storage: storage, message: "it did not answer within \(limit)") })
        {
            do {
                _ = try await readAll { try $0.fetchOne(Int.self, "SELECT 1", []) }
                return DatabaseState(status: .ok, storage: storage)
            } catch {
                return DatabaseState(status: .failing, storage: storage, message: PostgresLocation.cause(of: error))
            }
        }
    }

    /// Empties every table but `keeping` (and the migrations' record), in one transaction: the
    /// schema stays, so the store works on at once (`POST /api/reset`, `authphone reset`).
    public func erase(keeping: Set<String> = []) async throws {
        try await write { try $0.emptyTables(keeping: keeping) }
    }
}
