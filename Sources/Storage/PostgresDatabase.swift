import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Synchronization

/// One part's store on a shared PostgreSQL: its tables in a schema of its own (the part's
/// name), as on SQLite they are in a file of their own, reached through a pool of connections
/// whose `search_path` is that schema, so the stores' SQL names its tables alone on both engines.
///
/// A transaction's statements wait for their answers on a thread of the store's own (as GRDB's
/// do on its queue), so the stores' operations, written once as synchronous code, run on
/// either engine. Writes run at SERIALIZABLE: a counter read and then changed (wrong PINs, an
/// OTP's step, a token's rate window) is exact across every instance that shares the database,
/// and a write that loses a race to another runs again, as `GroupCommit` runs one again on
/// SQLite. A write must therefore change nothing but the database.
public final class PostgresDatabase: Sendable {
    public let schema: String
    /// Where the server is, without its password.
    public let location: String
    public let limits: Limits
    /// This pool's own name in the notices it announces, so that it does not hear them again.
    let instance = UUID().uuidString
    /// The transactions and statements it sent, for `/metrics`.
    public let counts = DatabaseCounts()
    let client: PostgresClient
    let logger: Logger
    private let threads: NIOThreadPool
    private let running: Task<Void, Never>

    /// How much of the server one store may take, and how long a request waits on it.
    public struct Limits: Sendable, Equatable {
        /// Connections (and threads) the store keeps at most.
        public var connections: Int
        /// How long a transaction waits for a connection, and then for its statements' answers,
        /// before it is given up as `StorageUnavailable` (a 503 at the edge).
        public var timeout: Duration

        public init(connections: Int = 8, timeout: Duration = .seconds(5)) {
            self.connections = connections
            self.timeout = timeout
        }
    }

    /// How often a write that lost a serialization race runs again before the loss is its error.
    static let attempts = 20

    /// `schema` is a plain lower-case name (letters, digits, `_`), as it names the channel too.
    public init(_ location: PostgresLocation, schema: String, limits: Limits = Limits(), logger: Logger) {
        var configuration = location.configuration
        precondition(schema.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }, "a schema's name is plain")
        self.location = location.description
        self.limits = limits
        configuration.options.maximumConnections = limits.connections
        // At SERIALIZABLE a sequential scan locks the whole table it reads, so that two logins
        // touching different rows collide and one runs again; an index scan locks only the pages
        // it reads. The tables are small, so the planner would scan them: it is told not to.
        configuration.options.additionalStartupParameters = [
            ("search_path", schema), ("application_name", "authphone"), ("enable_seqscan", "off"),
        ]
        self.schema = schema
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        threads = NIOThreadPool(numberOfThreads: limits.connections)
        threads.start()
        running = Task { await client.run() }
    }

    deinit {
        running.cancel()
        threads.shutdownGracefully { _ in }
    }

    /// `body` in one SERIALIZABLE transaction, run again while it loses to a concurrent one.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", body)
            } catch let error as PSQLError where Self.isLostRace(error) && attempt < Self.attempts {
                counts.lost()
                attempt += 1
                // apart, and further apart each time, so that the writers that collided do not
                // collide again at once (at most 50 ms: all the waits together stay under a second)
                try await Task.sleep(for: .microseconds(Int.random(in: 0...min(100 << attempt, 50_000))))
            }
        }
    }

    /// `body` in one read-only transaction: its reads see one moment.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// Runs the migrations not yet run, in order, each once however many instances start
    /// together: the first to take the schema's lock runs them, the others find them done.
    public func migrate(_ migrations: [PostgresMigration]) async throws {
        let schema = schema
        try await transaction("BEGIN") { sql in
            let quoted = "\"\(schema)\""
            try sql.execute("SELECT pg_advisory_xact_lock(hashtext(?))", ["authphone migrations " + schema])
            try sql.execute("CREATE SCHEMA IF NOT EXISTS \(quoted)", [])
            try sql.execute("SET LOCAL search_path TO \(quoted)", [])
            try sql.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, appliedAt TEXT NOT NULL)", [])
            let done = Set(try sql.fetchAll(String.self, "SELECT name FROM schema_migrations", []))
            for migration in migrations where !done.contains(migration.name) {
                for statement in migration.statements { try sql.execute(statement, []) }
                try sql.execute("INSERT INTO schema_migrations (name, appliedAt) VALUES (?, ?)", [migration.name, StoredDate(Date())])
            }
        }
    }

    private func transaction<T: Sendable>(_ begin: String, _ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws -> T {
        let (logger, channel, instance, location, timeout, counts) = (logger, channel, instance, location, limits.timeout, counts)
        counts.began()
        return try await withConnection { connection in
            try await self.threads.runIfActive {
                let sql = PostgresSQL(
                    connection: connection, logger: logger, channel: channel, instance: instance,
                    deadline: .now() + .nanoseconds(Int64(timeout / .nanoseconds(1))), location: location, counts: counts)
                try sql.run(begin)
                let value: T
                do {
                    value = try body(sql)
                } catch {
                    try? sql.run("ROLLBACK")
                    throw error
                }
                try sql.run("COMMIT")
                return value
            }
        }
    }

    /// A connection of the pool for `body`, or `StorageUnavailable` when none comes within the
    /// timeout: the pool would wait for ever while the server is down, retrying in the
    /// background, and a request must be answered (503) instead. Once `body` has its
    /// connection it runs to its end, which its statements' own deadline bounds.
    private func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let leased = LeaseMark()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await self.client.withConnection { connection in
                    leased.mark()
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: self.limits.timeout)
                guard leased.isMarked else {
                    throw StorageUnavailable(database: self.location, reason: "gave no connection within \(self.limits.timeout)")
                }
                return nil
            }
            while let finished = try await group.next() {
                if let value = finished {
                    group.cancelAll()
                    return value
                }
            }
            preconditionFailure("the connection's task ends with a value or an error")
        }
    }

    /// A serialization failure or a deadlock: the transaction lost to another and changed nothing.
    static func isLostRace(_ error: PSQLError) -> Bool {
        ["40001", "40P01"].contains(error.serverInfo?[.sqlState])
    }
}

/// A migration of a store's PostgreSQL schema: named once, never changed after it shipped.
public struct PostgresMigration: Sendable {
    public let name: String
    public let statements: [String]

    public init(_ name: String, _ statements: [String]) {
        self.name = name
        self.statements = statements
    }
}

/// Whether a transaction has its connection yet, as its deadline asks.
private final class LeaseMark: Sendable {
    private let marked = Atomic(false)
    var isMarked: Bool { marked.load(ordering: .acquiring) }
    func mark() { marked.store(true, ordering: .releasing) }
}

/// The database gave no connection, or no answer, in time: it is down, or unreachable, or
/// every connection is busy. A transaction given up before its COMMIT's answer changed nothing;
/// one given up waiting for that answer may have been committed, but was not acknowledged. The
/// request may be sent again.
public struct StorageUnavailable: Error, CustomStringConvertible {
    public let database: String
    public let reason: String
    public var description: String { "the PostgreSQL at \(database) \(reason)" }
}
