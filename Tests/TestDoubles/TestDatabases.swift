import Foundation
import Logging
import Storage

/// The engines a store suite runs on: SQLite always, and PostgreSQL when the test run has one
/// (`AUTHPHONE_TEST_POSTGRES_URL`, which `scripts/unit-test.sh` sets after starting a throwaway
/// cluster). Each store a test opens is its own: an SQLite database in memory, or a schema of
/// its own on the shared PostgreSQL.
public enum TestEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// The PostgreSQL the tests share, when there is one.
    public static let postgresURL = ProcessInfo.processInfo.environment["AUTHPHONE_TEST_POSTGRES_URL"]

    /// What a store suite takes as its arguments.
    public static let available: [TestEngine] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    /// A store of `Kind` on this engine, empty and migrated.
    public func open<Kind: Store>(_ kind: Kind.Type) async throws -> Kind {
        switch self {
        case .sqlite: return try Kind.inMemory()
        case .postgres: return try await Kind.open(try Self.freshPostgres())
        }
    }

    /// A schema of its own on the shared PostgreSQL, not yet migrated: for a test of a migration.
    public static func freshPostgres() throws -> PostgresDatabase {
        try TestEngine.postgres.sharedSchema(freshSchemaName())
    }

    /// The same store as another instance sees it: on PostgreSQL a pool of its own on the same
    /// schema; on SQLite, whose file one process holds, the store itself.
    public func otherInstance<Kind: Store>(of store: Kind) async throws -> Kind {
        guard case .postgres(let postgres) = store.database.engine else { return store }
        return try await Kind.open(try sharedSchema(postgres.schema))
    }

    /// A second connection to the same schema, as another instance has: what a test of two
    /// instances opens besides the first.
    private func sharedSchema(_ schema: String) throws -> PostgresDatabase {
        guard let url = Self.postgresURL else { preconditionFailure("only a PostgreSQL has schemas to share") }
        return PostgresDatabase(try PostgresLocation(url: url), schema: schema, limits: Self.limits, logger: Logger(label: "test-postgres"))
    }

    /// A test store's pool: two connections, and a minute to wait for one or for an answer. The
    /// whole run shares a few threads, which CPU-bound tests (4096-bit RSA keys, Argon2) hold
    /// for seconds at a time; a transaction given up then would fail a test for the machine's
    /// load, not for the server being down.
    static let limits = PostgresDatabase.Limits(connections: 2, timeout: .seconds(60))

    /// A schema no other test uses.
    private static func freshSchemaName() -> String {
        "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    }
}

/// A store's two schemas side by side: every SQLite table and column has its PostgreSQL twin.
public enum SchemaTwins {
    /// `table.column` names one engine has and the other lacks (PostgreSQL's folded to lower case).
    public static func differences<Kind: Store>(of kind: Kind.Type) async throws -> [String] {
        let sqlite = try Kind.inMemory()
        let sqliteColumns = try await sqlite.readAll { sql in
            try sql.fetchAll(
                String.self,
                "SELECT m.name || '.' || p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name != 'grdb_migrations'",
                [])
        }
        let postgres = try await TestEngine.postgres.open(kind)
        let postgresColumns = try await postgres.readAll { sql in
            try sql.fetchAll(
                String.self,
                "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name != 'schema_migrations'",
                [])
        }
        let one = Set(sqliteColumns.map { $0.lowercased() })
        let other = Set(postgresColumns)
        return one.symmetricDifference(other).sorted()
    }
}
