import AuthFlow
import Foundation
import GRDB
import Storage

/// The simulated phones' own storage: the device, its accounts and their keys, and its OTP accounts,
/// read and written through the named operations below (and PhoneStore+OTPAccounts.swift's) and
/// nowhere else. It shares no table with the backend, as a real phone shares no storage with its
/// server.
public struct PhoneStore: Store {
    public static let postgresMigrations: [PostgresMigration] = []  // TRANSITIONAL (issue 33)
    public let database: StoreDatabase

    public init(database: StoreDatabase) { self.database = database }

    public static var migrator: DatabaseMigrator {
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
                // the offline OTP (docs/behaviour.md#offline-otp): the account's reference and the key agreed with its server at enrolment
                t.add(column: "otpReference", .integer)
                t.add(column: "otpKey", .blob)
            }
        }
        migrator.registerMigration("phone-v6-device-key") { db in
            // the device's own Ed25519 key (its seed), which signs what no account key does
            try db.alter(table: "phone") { t in t.add(column: "deviceKeySeed", .blob).notNull().defaults(to: Data()) }
            try db.execute(sql: "UPDATE phone SET deviceKeySeed = randomblob(32)")
        }
        migrator.registerMigration("phone-v7-otp-accounts") { db in
            // otpauth:// accounts (docs/otp.md#otpauth-accounts); the same key, issuer and label once per phone
            try db.create(table: "otpAccount") { t in
                t.primaryKey("id", .text)
                t.belongsTo("phone", onDelete: .cascade).notNull()
                t.column("issuer", .text).notNull()
                t.column("label", .text).notNull()
                t.column("algorithm", .text).notNull()
                t.column("digits", .integer).notNull()
                t.column("period", .integer)
                t.column("counter", .integer)
                t.column("secret", .blob).notNull()
                t.column("createdAt", .datetime).notNull()
                t.check(sql: "(period IS NULL) <> (counter IS NULL)")
                t.uniqueKey(["phoneId", "secret", "issuer", "label"])
            }
        }
        migrator.registerMigration("phone-v8-privacyidea", migrate: createPrivacyIDEATables)
        migrator.registerMigration("phone-v9-pin-public-key") { db in
            try db.alter(table: "phone") { t in t.add(column: "pinPublicKey", .blob) }
        }
        migrator.registerMigration("phone-v10-push-token-settings") { db in
            try db.alter(table: "phone") { t in
                t.add(column: "pollPushTokens", .boolean).notNull().defaults(to: true)
                t.add(column: "unlockPushTokens", .boolean).notNull().defaults(to: false)
            }
        }
        return migrator
    }

    // MARK: phones

    func insert(_ phone: PhoneRecord) async throws(PhoneError) {
        try await write { db in try phone.insert(db) }
    }

    /// Every phone, oldest first.
    func phones() async throws(PhoneError) -> [PhoneRecord] {
        try await readAll { db in try PhoneRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM phone ORDER BY createdAt")) }
    }

    /// Removes the phone and its accounts; false when there was none.
    func delete(phoneId: String) async throws(PhoneError) -> Bool {
        try await write { db in try PhoneRecord.deleteOne(db, key: phoneId) }
    }

    /// A phone and its accounts, oldest first: what every step of a flow starts from.
    func phoneAndAccounts(_ id: String) async throws(PhoneError) -> (PhoneRecord, [AccountRecord])? {
        try await phoneAndAccounts(where: "id", is: id)
    }

    /// The same for the phone a push registration token reaches, in one read.
    func phoneAndAccounts(fcmToken: String) async throws(PhoneError) -> (PhoneRecord, [AccountRecord])? {
        try await phoneAndAccounts(where: "fcmToken", is: fcmToken)
    }

    private func phoneAndAccounts(where column: String, is value: String) async throws(PhoneError) -> (PhoneRecord, [AccountRecord])? {
        try await read { db -> (PhoneRecord, [AccountRecord])? in
            guard
                let phone = try PhoneRecord.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM phone WHERE \(column) = ?"), arguments: [value])
            else { return nil }
            let accounts = try AccountRecord.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM account WHERE phoneId = ? ORDER BY createdAt"), arguments: [phone.id])
            return (phone, accounts)
        }
    }

    /// Which of a phone's accounts go with a change of the phone.
    enum Accounts: Sendable {
        case all
        case ofUser(String)
        case one(String)
    }

    /// The phone as changed, and in the same transaction its accounts removed, if asked.
    func update(_ phone: PhoneRecord, removing accounts: Accounts? = nil) async throws(PhoneError) {
        try await write { db in
            try phone.update(db)
            switch accounts {
            case nil: break
            case .all: try db.execute(sql: "DELETE FROM account WHERE phoneId = ?", arguments: [phone.id])
            case .ofUser(let userId):
                try db.execute(sql: "DELETE FROM account WHERE phoneId = ? AND userId = ?", arguments: [phone.id, userId])
            case .one(let accountId): try db.execute(sql: "DELETE FROM account WHERE phoneId = ? AND id = ?", arguments: [phone.id, accountId])
            }
        }
    }

    // MARK: second factors

    /// The phone's PIN salt, set with its first or a changed PIN.
    func setPinSalt(phoneId: String, _ salt: Data) async throws(PhoneError) {
        try await write { db in try db.execute(sql: "UPDATE phone SET pinSalt = ? WHERE id = ?", arguments: [salt, phoneId]) }
    }

    /// An accepted PIN restarts the PIN-less counts (docs/behaviour.md#biometrics); its key's
    /// public half is the phone's PIN key from now on.
    func pinAccepted(phoneId: String, at time: Date, pinPublicKey: Data) async throws(PhoneError) {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE phone SET biometricUsesSinceLastPin = 0, lastPinAt = ?, pinPublicKey = ? WHERE id = ?")
                .execute(arguments: [StoredDate(time), pinPublicKey, phoneId])
        }
    }

    func countBiometricUse(phoneId: String) async throws(PhoneError) {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE phone SET biometricUsesSinceLastPin = biometricUsesSinceLastPin + 1 WHERE id = ?")
                .execute(arguments: [phoneId])
        }
    }

    /// The biometric key, bound to the enrolled features of now; its PIN-less count starts afresh.
    func keepBiometricKey(phoneId: String, _ secret: Data, featureSetVersion: Int) async throws(PhoneError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE phone SET biometricSecretKey = ?, biometricKeySetVersion = ?, biometricUsesSinceLastPin = 0 WHERE id = ?",
                arguments: [secret, featureSetVersion, phoneId])
        }
    }

    /// Biometrics off: the key is gone (removed, or invalidated by a new fingerprint).
    func dropBiometricKey(phoneId: String) async throws(PhoneError) {
        try await write { db in
            try db.execute(sql: "UPDATE phone SET biometricSecretKey = NULL, biometricKeySetVersion = NULL WHERE id = ?", arguments: [phoneId])
        }
    }

    // MARK: accounts

    /// A new account, with the phone's first PIN salt when the enrolment set the PIN, and the
    /// public half of the PIN key the enrolment proved.
    func insert(_ account: AccountRecord, pinSalt: Data?, pinPublicKey: Data) async throws(PhoneError) {
        try await write { db in
            try account.insert(db)
            if let pinSalt { try db.execute(sql: "UPDATE phone SET pinSalt = ? WHERE id = ?", arguments: [pinSalt, account.phoneId]) }
            try db.execute(sql: "UPDATE phone SET pinPublicKey = ? WHERE id = ?", arguments: [pinPublicKey, account.phoneId])
        }
    }

    /// The server moved (another port or host): its accounts remember where it is now.
    func moveAccounts(_ ids: [String], to serverURL: String) async throws(PhoneError) {
        try await write { db in
            for id in ids { try db.execute(sql: "UPDATE account SET serverURL = ? WHERE id = ?", arguments: [serverURL, id]) }
        }
    }

    /// HEADLESS_UPGRADE: the account's new key.
    func replaceAccountKey(accountId: String, _ secret: Data) async throws(PhoneError) {
        try await write { db in try db.execute(sql: "UPDATE account SET secretKey = ? WHERE id = ?", arguments: [secret, accountId]) }
    }

    // MARK: transactions

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(PhoneError) -> T {
        do { return try await commits.write(body) } catch { throw isStorageFull(error) ? .storageFull : .storageFailed }
    }

    /// A few rows, on the caller's thread (`readHere`).
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(PhoneError) -> T {
        do { return try readHere(body) } catch { throw .storageFailed }
    }

    /// A whole table, on the database's queue: ten thousand phones would hold the caller's thread.
    func readAll<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(PhoneError) -> T {
        do { return try await writer.read(body) } catch { throw .storageFailed }
    }
}
