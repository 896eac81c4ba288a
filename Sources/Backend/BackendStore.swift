import Foundation
import GRDB
import Storage

/// The demo backend's own database: sessions, accounts, the server key and the Second Factor
/// Server's counters. It shares no table with the phones. Every read and write goes through
/// the named operations of a `Transaction`, so the flows hold no SQL.
public struct BackendStore: Store {
    public let database: StoreDatabase

    public init(database: StoreDatabase) { self.database = database }

    /// The operations of one database transaction: whatever a flow checks and changes inside
    /// `write` is atomic, as the Second Factor Server's counting needs.
    struct Transaction {
        let sql: any StoreSQL
    }

    /// Runs `body` in one write transaction; a thrown error rolls it back.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try await database.write { sql in try body(Transaction(sql: sql)) }
    }

    /// A few rows (`StoreDatabase.read`).
    func read<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try await database.read { sql in try body(Transaction(sql: sql)) }
    }

    /// Whole tables (an export), so the caller's thread is not held (`StoreDatabase.readAll`).
    func readAll<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try await database.readAll { sql in try body(Transaction(sql: sql)) }
    }

    /// Every session, account, device, counter, flag and policy gone; the server's key stays, so
    /// phones enrolled later still see the same server.
    public func eraseTestData() async throws {
        try await erase(keeping: [ServerKeyRecord.databaseTableName])
    }

    /// The server's signing key: the stored one, or else the one `generate` makes, stored now.
    /// Instances that start together on one database all end with the first one stored.
    func serverSecretKey(now: Date, generate: @escaping @Sendable () throws -> [UInt8]) async throws -> [UInt8] {
        try await write { tx in
            let stored = { try tx.sql.fetchOne(Data.self, "SELECT secretKey FROM serverKey WHERE id = 1", []) }
            if let key = try stored() { return Array(key) }
            try tx.sql.execute(
                "INSERT INTO serverKey (id, secretKey, createdAt) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING",
                [Data(try generate()), StoredDate(now)])
            guard let key = try stored() else { preconditionFailure("the key was stored, or another instance's was") }
            return Array(key)
        }
    }

    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("backend-v1") { db in
            try db.create(table: "serverKey") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("secretKey", .blob).notNull()
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "session") { t in
                t.primaryKey("id", .text)
                t.column("type", .text).notNull()
                t.column("userId", .text).notNull()
                t.column("displayName", .text).notNull()
                t.column("token", .text).notNull().unique()
                t.column("status", .text).notNull()
                t.column("challenge", .text).notNull()
                t.column("deviceId", .text)
                t.column("accountId", .text)
                t.column("failure", .text)
                t.column("otplogin", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .datetime).notNull().indexed()
                t.column("expiresAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "account") { t in
                t.primaryKey("id", .text)
                t.column("userId", .text).notNull().indexed()
                t.column("displayName", .text).notNull()
                t.column("deviceId", .text).notNull().indexed()
                t.column("publicKey", .blob).notNull()
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "secondFactorAccount") { t in
                t.primaryKey("deviceId", .text)
                t.column("pinPublicKey", .blob).notNull()
                t.column("failedAttempts", .integer).notNull()
                t.column("isBlocked", .boolean).notNull()
                t.column("penalisedUntil", .datetime)
                t.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("backend-v2-devices-and-delivery") { db in
            try db.create(table: "device") { t in
                t.primaryKey("deviceId", .text)
                t.column("name", .text).notNull()
                t.column("fcmToken", .text)
                t.column("updatedAt", .datetime).notNull()
            }
            try db.alter(table: "session") { t in
                t.add(column: "delivery", .text).notNull().defaults(to: "qr")
                t.add(column: "dispatch", .text)
            }
        }
        migrator.registerMigration("backend-v3-transactions") { db in
            try db.alter(table: "session") { t in
                t.add(column: "transactionText", .text)
                t.add(column: "transactionSignature", .text)
                t.add(column: "userInput", .text)
            }
        }
        migrator.registerMigration("backend-v4-second-factor-policy") { db in
            // one row: the policy set from the console, which outlives a restart
            try db.create(table: "secondFactorPolicy") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("maxAttempts", .integer).notNull()
                t.column("penalties", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("backend-v5-biometrics") { db in
            try db.alter(table: "secondFactorAccount") { t in
                t.add(column: "biometricPublicKey", .blob)
            }
        }
        migrator.registerMigration("backend-v6-offline-otp") { db in
            try db.alter(table: "account") { t in
                // the OTP's first half names the account; NULL for accounts enrolled without an OTP key
                t.add(column: "otpReference", .integer)
                t.add(column: "otpKey", .blob)
                // consecutive wrong OTPs, and the time step of the last accepted one (no replay)
                t.add(column: "otpFailures", .integer).notNull().defaults(to: 0)
                t.add(column: "otpLastStep", .integer)
            }
            try db.create(index: "account_otpReference", on: "account", columns: ["otpReference"], unique: true)
            try db.create(table: "serverFlag") { t in
                t.primaryKey("name", .text)
                t.column("enabled", .boolean).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("backend-v7-device-key") { db in
            // the device's own key: registered with its second factor, and the key a session was redeemed with
            try db.alter(table: "secondFactorAccount") { t in t.add(column: "devicePublicKey", .blob) }
            try db.alter(table: "session") { t in t.add(column: "devicePublicKey", .blob) }
        }
        migrator.registerMigration("backend-v8-announce-info") { db in
            // a session's own announceInfo (JSON) and logo (a data URL)
            try db.alter(table: "session") { t in
                t.add(column: "announceInfo", .text)
                t.add(column: "announceLogo", .text)
            }
        }
        migrator.registerMigration("backend-v9-skipped-steps") { db in
            // the steps the configuration skips for a session (seed 001)
            try db.alter(table: "session") { t in
                t.add(column: "skipConfirmation", .boolean).notNull().defaults(to: false)
                t.add(column: "skipSecondFactor", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("backend-v10-push-retry") { db in
            // when a push the push service throttled goes again (docs/operating.md, throttled pushes)
            try db.alter(table: "session") { t in t.add(column: "pushRetryAt", .datetime) }
        }
        migrator.registerMigration("backend-v11-pending-by-user") { db in
            try db.execute(sql: Self.pendingByUserIndex)
        }
        return migrator
    }

    /// The tables `migrator` makes, as PostgreSQL's: dates as the same text, booleans as 0 or 1.
    public static let postgresMigrations = [
        PostgresMigration(
            "backend-pg-v1",
            [
                "CREATE TABLE serverKey (id BIGINT PRIMARY KEY CHECK (id = 1), secretKey BYTEA NOT NULL, createdAt TEXT NOT NULL)",
                """
                CREATE TABLE session (id TEXT PRIMARY KEY, type TEXT NOT NULL, userId TEXT NOT NULL, displayName TEXT NOT NULL,
                    token TEXT NOT NULL UNIQUE, status TEXT NOT NULL, challenge TEXT NOT NULL, deviceId TEXT, accountId TEXT,
                    failure TEXT, otplogin BIGINT NOT NULL DEFAULT 0, createdAt TEXT NOT NULL, expiresAt TEXT NOT NULL,
                    updatedAt TEXT NOT NULL, delivery TEXT NOT NULL DEFAULT 'qr', dispatch TEXT, transactionText TEXT,
                    transactionSignature TEXT, userInput TEXT, devicePublicKey BYTEA, announceInfo TEXT, announceLogo TEXT,
                    skipConfirmation BIGINT NOT NULL DEFAULT 0, skipSecondFactor BIGINT NOT NULL DEFAULT 0, pushRetryAt TEXT)
                """,
                "CREATE INDEX session_on_createdAt ON session (createdAt)",
                """
                CREATE TABLE account (id TEXT PRIMARY KEY, userId TEXT NOT NULL, displayName TEXT NOT NULL, deviceId TEXT NOT NULL,
                    publicKey BYTEA NOT NULL, createdAt TEXT NOT NULL, otpReference BIGINT, otpKey BYTEA,
                    otpFailures BIGINT NOT NULL DEFAULT 0, otpLastStep BIGINT)
                """,
                "CREATE INDEX account_on_userId ON account (userId)",
                "CREATE INDEX account_on_deviceId ON account (deviceId)",
                "CREATE UNIQUE INDEX account_otpReference ON account (otpReference)",
                """
                CREATE TABLE secondFactorAccount (deviceId TEXT PRIMARY KEY, pinPublicKey BYTEA NOT NULL,
                    failedAttempts BIGINT NOT NULL, isBlocked BIGINT NOT NULL, penalisedUntil TEXT, updatedAt TEXT NOT NULL,
                    biometricPublicKey BYTEA, devicePublicKey BYTEA)
                """,
                "CREATE TABLE device (deviceId TEXT PRIMARY KEY, name TEXT NOT NULL, fcmToken TEXT, updatedAt TEXT NOT NULL)",
                """
                CREATE TABLE secondFactorPolicy (id BIGINT PRIMARY KEY CHECK (id = 1), maxAttempts BIGINT NOT NULL,
                    penalties TEXT NOT NULL, updatedAt TEXT NOT NULL)
                """,
                "CREATE TABLE serverFlag (name TEXT PRIMARY KEY, enabled BIGINT NOT NULL, updatedAt TEXT NOT NULL)",
            ]),
        PostgresMigration("backend-pg-v2-pending-by-user", [pendingByUserIndex]),
    ]

    /// A phone finds its user's sessions waiting for it by user (`pendingSessions`):
    /// without an index that read scans every session, and on PostgreSQL at SERIALIZABLE a scan
    /// locks the whole table against every other login's writes.
    static let pendingByUserIndex = "CREATE INDEX session_on_userId ON session (userId)"
}
