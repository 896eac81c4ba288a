import Foundation
import GRDB
import Storage

/// The demo backend's own database: sessions, accounts, the server key and the Second Factor
/// Server's counters. It shares no table with the phones. Every read and write goes through
/// the named operations of a `Transaction`, so the flows hold no SQL.
public struct BackendStore: Store {
    public static let postgresMigrations: [PostgresMigration] = []  // TRANSITIONAL (issue 33)
    public let database: StoreDatabase

    public init(database: StoreDatabase) { self.database = database }

    /// The operations of one database transaction: whatever a flow checks and changes inside
    /// `write` is atomic, as the Second Factor Server's counting needs.
    struct Transaction {
        let db: Database
    }

    /// Runs `body` in one write transaction; a thrown error rolls it back.
    func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try await commits.write { db in try body(Transaction(db: db)) }
    }

    /// A few rows, on the caller's thread (`readHere`).
    func read<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try readHere { db in try body(Transaction(db: db)) }
    }

    /// Whole tables (an export), on the database's queue, so the caller's thread is not held.
    func readAll<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T {
        try await writer.read { db in try body(Transaction(db: db)) }
    }

    /// Every session, account, device, counter, flag and policy gone; the server's key stays, so
    /// phones enrolled later still see the same server.
    public func eraseTestData() async throws {
        try await erase(keeping: [ServerKeyRecord.databaseTableName])
    }

    /// The server's signing key: the stored one, or else the one `generate` makes, stored now.
    func serverSecretKey(now: Date, generate: () throws -> [UInt8]) throws -> [UInt8] {
        try writer.write { db in
            if let stored = try ServerKeyRecord.fetchOne(db, key: 1) { return Array(stored.secretKey) }
            let secretKey = try generate()
            try ServerKeyRecord(id: 1, secretKey: Data(secretKey), createdAt: now).insert(db)
            return secretKey
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
        return migrator
    }
}
