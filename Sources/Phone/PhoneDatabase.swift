import AuthFlow
import Foundation
import GRDB

/// The simulated phones' own storage: the device, its accounts and their keys. It shares no
/// table with the backend, as a real phone shares no storage with its server.
public struct PhoneDatabase: Sendable {
    let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    /// A file database in WAL mode, `synchronous = FULL`: an account just enrolled and the
    /// biometric uses counted against the PIN-less limit survive a power loss too.
    public static func open(path: String) throws -> PhoneDatabase {
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        return try PhoneDatabase(pool)
    }

    public static func inMemory() throws -> PhoneDatabase {
        try PhoneDatabase(DatabaseQueue())
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("phone-v1") { db in
            try db.create(table: "phone") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("deviceId", .text).notNull().unique()
                t.column("fcmToken", .text).notNull().unique()
                t.column("pinLength", .integer).notNull()
                // The salt of the PIN's key derivation; NULL until a PIN is set. Not a secret.
                t.column("pinSalt", .blob)
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "account") { t in
                t.primaryKey("id", .text)
                t.belongsTo("phone", onDelete: .cascade).notNull()
                t.column("userId", .text).notNull()
                t.column("displayName", .text).notNull()
                t.column("serverName", .text).notNull()
                t.column("serverURL", .text).notNull()
                // The server key seen at enrolment; later sessions must be signed by it.
                t.column("serverPublicKey", .blob).notNull()
                t.column("secretKey", .blob).notNull()
                t.column("createdAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("phone-v2-settings") { db in
            try db.alter(table: "phone") { t in
                t.add(column: "openPushesAtOnce", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("phone-v3-second-factors") { db in
            try db.alter(table: "phone") { t in
                t.add(column: "biometricSensor", .boolean).notNull().defaults(to: true)
                t.add(column: "biometricsDisabled", .boolean).notNull().defaults(to: false)
                t.add(column: "legacyBioAddFlow", .boolean).notNull().defaults(to: false)
                t.add(column: "disallowPinChangeWithBiometric", .boolean).notNull().defaults(to: false)
                t.add(column: "maxNumberSecondFactorWithoutPIN", .integer).notNull().defaults(to: 0)
                t.add(column: "maxTimeSecondFactorWithoutPIN", .integer).notNull().defaults(to: 0)
                t.add(column: "showVisualHash", .boolean).notNull().defaults(to: true)
                t.add(column: "pinChangeStyle", .text).notNull().defaults(to: "nextAuth")
                // the simulated sensor: enrolling or removing a feature bumps the set's version
                t.add(column: "enrolledFeatures", .integer).notNull().defaults(to: 1)
                t.add(column: "featureSetVersion", .integer).notNull().defaults(to: 1)
                // the biometric key, valid only for the feature set it was made with
                t.add(column: "biometricSecretKey", .blob)
                t.add(column: "biometricKeySetVersion", .integer)
                t.add(column: "biometricUsesSinceLastPin", .integer).notNull().defaults(to: 0)
                t.add(column: "lastPinAt", .datetime)
            }
        }
        migrator.registerMigration("phone-v4-device-information") { db in
            try db.alter(table: "phone") { t in
                t.add(column: "pushNotificationsDisabled", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("phone-v5-offline-otp") { db in
            try db.alter(table: "phone") { t in
                t.add(column: "otpCountdown", .integer).notNull().defaults(to: 60)
            }
            try db.alter(table: "account") { t in
                // seed 004: the account's reference and the key agreed with its server at enrolment
                t.add(column: "otpReference", .integer)
                t.add(column: "otpKey", .blob)
            }
        }
        migrator.registerMigration("phone-v6-device-key") { db in
            // the device's own Ed25519 key (its seed), which signs what no account key does
            try db.alter(table: "phone") { t in t.add(column: "deviceKeySeed", .blob).notNull().defaults(to: Data()) }
            try db.execute(sql: "UPDATE phone SET deviceKeySeed = randomblob(32)")
        }
        return migrator
    }
}

struct PhoneRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "phone"
    var id: String
    var name: String
    var deviceId: String
    var fcmToken: String
    var pinLength: Int
    var pinSalt: Data?
    var createdAt: Date
    var openPushesAtOnce: Bool
    var biometricSensor = true
    var biometricsDisabled = false
    var legacyBioAddFlow = false
    var disallowPinChangeWithBiometric = false
    var maxNumberSecondFactorWithoutPIN = 0
    var maxTimeSecondFactorWithoutPIN = 0
    var showVisualHash = true
    var pinChangeStyle = FlowOptions.PinChangeStyle.nextAuth
    var enrolledFeatures = 1
    var featureSetVersion = 1
    var biometricSecretKey: Data?
    var biometricKeySetVersion: Int?
    var biometricUsesSinceLastPin = 0
    var lastPinAt: Date?
    var pushNotificationsDisabled = false
    var otpCountdown = PhoneSettings.defaultOTPCountdown
    /// The device key's seed; a new device identity gets a new one.
    var deviceKeySeed = Data()

    enum Columns {
        static let createdAt = Column(CodingKeys.createdAt)
        static let fcmToken = Column(CodingKeys.fcmToken)
    }
}

struct AccountRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"
    var id: String
    var phoneId: String
    var userId: String
    var displayName: String
    var serverName: String
    var serverURL: String
    var serverPublicKey: Data
    var secretKey: Data
    var createdAt: Date
    var otpReference: UInt32?
    var otpKey: Data?

    enum Columns {
        static let phoneId = Column(CodingKeys.phoneId)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}

extension FlowOptions.PinChangeStyle: DatabaseValueConvertible {}
