import BackendAPI
import Foundation
import GRDB

/// The demo backend's own database: sessions, accounts, the server key and the Second Factor
/// Server's counters. It shares no table with the phones.
public struct BackendDatabase: Sendable {
    let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    /// A file database in WAL mode. `synchronous = FULL` because the PIN failure counters guard
    /// a secret: a counted failure must survive a crash (GRDB's pool would leave it at NORMAL).
    public static func open(path: String) throws -> BackendDatabase {
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        return try BackendDatabase(pool)
    }

    /// For tests.
    public static func inMemory() throws -> BackendDatabase {
        try BackendDatabase(DatabaseQueue())
    }

    static var migrator: DatabaseMigrator {
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
        return migrator
    }
}

public enum SessionStatus: String, Codable, Sendable, DatabaseValueConvertible {
    /// `verified`: a management flow's factor was accepted and its change may follow;
    /// `completed`: a management flow or key rotation made its change.
    case pending, redeemed, confirmed, verified, enrolled, loggedin, signed, completed, failed, canceled, expired

    var isFinal: Bool { [.enrolled, .loggedin, .signed, .completed, .failed, .canceled, .expired].contains(self) }
}

struct SessionRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "session"
    var id: String
    var type: String
    var userId: String
    var displayName: String
    var token: String
    var status: SessionStatus
    var challenge: String
    var deviceId: String?
    var accountId: String?
    var failure: String?
    var otplogin: Bool
    var createdAt: Date
    var expiresAt: Date
    var updatedAt: Date
    var delivery: String
    /// How the push went, in nevisFIDO's words (`dispatched`, `dispatchTargetNotFound`, …).
    var dispatch: String?
    /// A transaction's text, and the account key's signature over it once the user confirmed.
    var transactionText: String?
    var transactionSignature: String?
    /// Free text the user sent with the confirmation.
    var userInput: String?
    /// The key of the device that redeemed the session; its requests are signed by it.
    var devicePublicKey: Data?

    enum Columns {
        static let token = Column(CodingKeys.token)
        static let createdAt = Column(CodingKeys.createdAt)
    }

    var sessionType: WireSessionType? { WireSessionType(rawValue: type) }
}

struct AccountRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"
    var id: String
    var userId: String
    var displayName: String
    var deviceId: String
    var publicKey: Data
    var createdAt: Date
    var otpReference: UInt32?
    var otpKey: Data?
    var otpFailures = 0
    var otpLastStep: Int64?

    enum Columns {
        static let userId = Column(CodingKeys.userId)
        static let otpReference = Column(CodingKeys.otpReference)
    }
}

/// A server flag (nextAuth's serverFlags) as set from the console or the REST API.
struct ServerFlagRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "serverFlag"
    var name: String
    var enabled: Bool
    var updatedAt: Date
}

/// Device information the phone gave at enrolment.
struct DeviceRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device"
    var deviceId: String
    var name: String
    var fcmToken: String?
    var updatedAt: Date
}

struct SecondFactorRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "secondFactorAccount"
    var deviceId: String
    var pinPublicKey: Data
    var failedAttempts: Int
    var isBlocked: Bool
    var penalisedUntil: Date?
    var updatedAt: Date
    var biometricPublicKey: Data?
    /// The device's own key; nil for a device registered before devices had one, until its
    /// next accepted PIN binds the key it then uses.
    var devicePublicKey: Data?
}

struct SecondFactorPolicyRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "secondFactorPolicy"
    var id = 1
    var maxAttempts: Int
    /// JSON array of seconds.
    var penalties: [Int]
    var updatedAt: Date

    var policy: SecondFactorPolicy { SecondFactorPolicy(maxAttempts: maxAttempts, penalties: penalties) }
}

struct ServerKeyRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "serverKey"
    var id: Int
    var secretKey: Data
    var createdAt: Date
}
