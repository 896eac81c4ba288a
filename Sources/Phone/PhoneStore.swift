import AuthFlow
import Foundation
import GRDB
import Storage

/// The simulated phones' own storage: the device, its accounts and their keys, and its OTP accounts,
/// read and written through the named operations below (and PhoneStore+OTPAccounts.swift's) and
/// nowhere else. It shares no table with the backend, as a real phone shares no storage with its
/// server.
public struct PhoneStore: Store {
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
        migrator.registerMigration("phone-v11-homes") { db in
            for statement in homesTables { try db.execute(sql: statement) }
        }
        migrator.registerMigration("phone-v12-numbers-and-texts") { db in
            // a number each, handed out from the fictional range in the order the phones were made
            try db.execute(sql: "ALTER TABLE phone ADD COLUMN number TEXT")
            try db.execute(
                sql: """
                    UPDATE phone SET number = printf('+4477009%05d', (SELECT count(*) FROM phone AS older WHERE older.rowid < phone.rowid) % 100000)
                    """)
            for statement in numbersAndTexts { try db.execute(sql: statement) }
        }
        migrator.registerMigration("phone-v13-privacyidea-containers", migrate: createContainerTables)
        migrator.registerMigration("phone-v14-unlock-factor") { db in try db.execute(sql: unlockFactorColumn) }
        migrator.registerMigration("phone-v15-tiqr") { db in try db.execute(sql: tiqrTable(bytes: "BLOB")) }
        return migrator
    }

    /// The schema the SQLite migrations add up to, in PostgreSQL's types: booleans as 0 or 1
    /// and dates as GRDB's text, so the records read back as they do from SQLite.
    public static let postgresMigrations = [
        PostgresMigration(
            "phone-pg-v1",
            [
                """
                CREATE TABLE phone (id TEXT PRIMARY KEY, name TEXT NOT NULL, deviceId TEXT NOT NULL UNIQUE, fcmToken TEXT NOT NULL UNIQUE,
                    pinLength BIGINT NOT NULL, pinSalt BYTEA, createdAt TEXT NOT NULL, openPushesAtOnce BIGINT NOT NULL DEFAULT 0,
                    biometricSensor BIGINT NOT NULL DEFAULT 1, biometricsDisabled BIGINT NOT NULL DEFAULT 0,
                    legacyBioAddFlow BIGINT NOT NULL DEFAULT 0, disallowPinChangeWithBiometric BIGINT NOT NULL DEFAULT 0,
                    maxNumberSecondFactorWithoutPIN BIGINT NOT NULL DEFAULT 0, maxTimeSecondFactorWithoutPIN BIGINT NOT NULL DEFAULT 0,
                    showVisualHash BIGINT NOT NULL DEFAULT 1, pinChangeStyle TEXT NOT NULL DEFAULT 'nextAuth',
                    enrolledFeatures BIGINT NOT NULL DEFAULT 1, featureSetVersion BIGINT NOT NULL DEFAULT 1, biometricSecretKey BYTEA,
                    biometricKeySetVersion BIGINT, biometricUsesSinceLastPin BIGINT NOT NULL DEFAULT 0, lastPinAt TEXT,
                    pushNotificationsDisabled BIGINT NOT NULL DEFAULT 0, otpCountdown BIGINT NOT NULL DEFAULT 60,
                    deviceKeySeed BYTEA NOT NULL DEFAULT '', pinPublicKey BYTEA, pollPushTokens BIGINT NOT NULL DEFAULT 1,
                    unlockPushTokens BIGINT NOT NULL DEFAULT 0)
                """,
                """
                CREATE TABLE account (id TEXT PRIMARY KEY, phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE,
                    userId TEXT NOT NULL, displayName TEXT NOT NULL, serverName TEXT NOT NULL, serverURL TEXT NOT NULL,
                    serverPublicKey BYTEA NOT NULL, secretKey BYTEA NOT NULL, createdAt TEXT NOT NULL, otpReference BIGINT, otpKey BYTEA)
                """,
                "CREATE INDEX account_on_phoneId ON account (phoneId)",
                """
                CREATE TABLE otpAccount (id TEXT PRIMARY KEY, phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE,
                    issuer TEXT NOT NULL, label TEXT NOT NULL, algorithm TEXT NOT NULL, digits BIGINT NOT NULL, period BIGINT,
                    counter BIGINT, secret BYTEA NOT NULL, createdAt TEXT NOT NULL, CHECK ((period IS NULL) <> (counter IS NULL)),
                    UNIQUE (phoneId, secret, issuer, label))
                """,
                """
                CREATE TABLE privacyIDEAToken (phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE, serial TEXT NOT NULL,
                    label TEXT NOT NULL, issuer TEXT NOT NULL, url TEXT NOT NULL, origin TEXT NOT NULL, sslVerify BIGINT NOT NULL,
                    pollOnly BIGINT NOT NULL, requiresUnlock BIGINT NOT NULL, tokenKey BYTEA NOT NULL, serverKey TEXT NOT NULL,
                    fcmToken TEXT NOT NULL, createdAt TEXT NOT NULL, PRIMARY KEY (phoneId, serial))
                """,
                """
                CREATE TABLE privacyIDEAOrigin (phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE, origin TEXT NOT NULL,
                    acceptedAt TEXT NOT NULL, PRIMARY KEY (phoneId, origin))
                """,
                """
                CREATE TABLE privacyIDEAAnswer (phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE, serial TEXT NOT NULL,
                    nonce TEXT NOT NULL, answeredAt TEXT NOT NULL, PRIMARY KEY (phoneId, serial, nonce))
                """,
            ]),
        PostgresMigration("phone-pg-v2-homes", homesTables),
        PostgresMigration(
            "phone-pg-v3-numbers-and-texts",
            [
                "ALTER TABLE phone ADD COLUMN number TEXT",
                """
                UPDATE phone SET number = '+4477009' || lpad(((older.rank - 1) % 100000)::text, 5, '0')
                    FROM (SELECT id, row_number() OVER (ORDER BY createdAt, id) AS rank FROM phone) AS older WHERE phone.id = older.id
                """,
                "ALTER TABLE phone ALTER COLUMN number SET NOT NULL",
            ] + numbersAndTexts),
        PostgresMigration("phone-pg-v4-privacyidea-containers", postgresContainerTables),
        PostgresMigration("phone-pg-v5-unlock-factor", [unlockFactorColumn]),
        PostgresMigration("phone-pg-v6-tiqr", [tiqrTable(bytes: "BYTEA")]),
    ]

    /// The one factor privacyIDEA's `app_force_unlock` lets a token unlock with: the same on both engines.
    private static let unlockFactorColumn = "ALTER TABLE privacyIDEAToken ADD COLUMN unlockFactor TEXT"

    /// The phones' numbers, unique, and the texts their Messages app keeps, newest read first:
    /// the same on both engines.
    private static let numbersAndTexts = [
        "CREATE UNIQUE INDEX phone_on_number ON phone (number)",
        """
        CREATE TABLE textMessage (id TEXT PRIMARY KEY, phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE,
            sender TEXT NOT NULL, body TEXT NOT NULL, receivedAt TEXT NOT NULL)
        """,
        "CREATE INDEX textMessage_on_phoneId_receivedAt ON textMessage (phoneId, receivedAt)",
    ]

    // MARK: phones

    func insert(_ phone: PhoneRecord) async throws(PhoneError) {
        try await write { sql in try PhoneRecord.insertion.run(phone, sql) }
    }

    /// Every phone, oldest first.
    func phones() async throws(PhoneError) -> [PhoneRecord] {
        try await readAll { sql in try sql.fetchAll(PhoneRecord.self, "SELECT * FROM phone ORDER BY createdAt", []) }
    }

    /// Removes the phone and its accounts; false when there was none.
    func delete(phoneId: String) async throws(PhoneError) -> Bool {
        try await write { sql in try sql.execute("DELETE FROM phone WHERE id = ?", [phoneId]) > 0 }
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
        try await read { sql -> (PhoneRecord, [AccountRecord])? in
            guard let phone = try sql.fetchOne(PhoneRecord.self, "SELECT * FROM phone WHERE \(column) = ?", [value]) else { return nil }
            let accounts = try sql.fetchAll(AccountRecord.self, "SELECT * FROM account WHERE phoneId = ? ORDER BY createdAt", [phone.id])
            return (phone, accounts)
        }
    }

    /// Which of a phone's accounts go with a change of the phone.
    enum Accounts: Sendable {
        case all
        case ofUser(String)
        case one(String)
    }

    /// The phone read, changed by `body` and written back, and its accounts removed if asked, all
    /// in one transaction: two changes at once both count (read apart from the write, eight
    /// fingerprints added at once made four). A refusal from `body` changes nothing. On
    /// PostgreSQL a transaction that loses to another runs again, so `body` only changes the record.
    func change(
        _ phoneId: String, removing accounts: Accounts? = nil, _ body: @escaping @Sendable (inout PhoneRecord) throws(PhoneError) -> Void
    ) async throws(PhoneError) {
        let outcome = try await write { sql -> Result<Void, PhoneError> in
            guard var phone = try sql.fetchOne(PhoneRecord.self, "SELECT * FROM phone WHERE id = ?", [phoneId]) else {
                return .failure(.phoneNotFound(phoneId))
            }
            do throws(PhoneError) { try body(&phone) } catch { return .failure(error) }
            _ = try PhoneRecord.insertion.update(phone, key: "id", sql)
            switch accounts {
            case nil: break
            case .all: try sql.execute("DELETE FROM account WHERE phoneId = ?", [phoneId])
            case .ofUser(let userId): try sql.execute("DELETE FROM account WHERE phoneId = ? AND userId = ?", [phoneId, userId])
            case .one(let accountId): try sql.execute("DELETE FROM account WHERE phoneId = ? AND id = ?", [phoneId, accountId])
            }
            return .success(())
        }
        try outcome.get()
    }

    // MARK: second factors

    /// The phone's PIN salt, set with its first or a changed PIN.
    func setPinSalt(phoneId: String, _ salt: Data) async throws(PhoneError) {
        try await write { sql in try sql.execute("UPDATE phone SET pinSalt = ? WHERE id = ?", [salt, phoneId]) }
    }

    /// An accepted PIN restarts the PIN-less counts (docs/behaviour.md#biometrics); its key's
    /// public half is the phone's PIN key from now on.
    func pinAccepted(phoneId: String, at time: Date, pinPublicKey: Data) async throws(PhoneError) {
        try await write { sql in
            try sql.execute(
                "UPDATE phone SET biometricUsesSinceLastPin = 0, lastPinAt = ?, pinPublicKey = ? WHERE id = ?",
                [StoredDate(time), pinPublicKey, phoneId])
        }
    }

    func countBiometricUse(phoneId: String) async throws(PhoneError) {
        try await write { sql in
            try sql.execute("UPDATE phone SET biometricUsesSinceLastPin = biometricUsesSinceLastPin + 1 WHERE id = ?", [phoneId])
        }
    }

    /// The biometric key, bound to the enrolled features of now; its PIN-less count starts afresh.
    func keepBiometricKey(phoneId: String, _ secret: Data, featureSetVersion: Int) async throws(PhoneError) {
        try await write { sql in
            try sql.execute(
                "UPDATE phone SET biometricSecretKey = ?, biometricKeySetVersion = ?, biometricUsesSinceLastPin = 0 WHERE id = ?",
                [secret, featureSetVersion, phoneId])
        }
    }

    /// Biometrics off: the key is gone (removed, or invalidated by a new fingerprint).
    func dropBiometricKey(phoneId: String) async throws(PhoneError) {
        try await write { sql in
            try sql.execute("UPDATE phone SET biometricSecretKey = NULL, biometricKeySetVersion = NULL WHERE id = ?", [phoneId])
        }
    }

    // MARK: accounts

    /// A new account, with the phone's first PIN salt when the enrolment set the PIN, and the
    /// public half of the PIN key the enrolment proved.
    func insert(_ account: AccountRecord, pinSalt: Data?, pinPublicKey: Data) async throws(PhoneError) {
        try await write { sql in
            try AccountRecord.insertion.run(account, sql)
            if let pinSalt { try sql.execute("UPDATE phone SET pinSalt = ? WHERE id = ?", [pinSalt, account.phoneId]) }
            try sql.execute("UPDATE phone SET pinPublicKey = ? WHERE id = ?", [pinPublicKey, account.phoneId])
        }
    }

    /// The server moved (another port or host): its accounts remember where it is now.
    func moveAccounts(_ ids: [String], to serverURL: String) async throws(PhoneError) {
        try await write { sql in
            for id in ids { try sql.execute("UPDATE account SET serverURL = ? WHERE id = ?", [serverURL, id]) }
        }
    }

    /// HEADLESS_UPGRADE: the account's new key.
    func replaceAccountKey(accountId: String, _ secret: Data) async throws(PhoneError) {
        try await write { sql in try sql.execute("UPDATE account SET secretKey = ? WHERE id = ?", [secret, accountId]) }
    }

    // MARK: transactions

    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws(PhoneError) -> T {
        do { return try await database.write(body) } catch { throw isStorageFull(error) ? .storageFull : .storageFailed }
    }

    /// A few rows (`StoreDatabase.read`).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws(PhoneError) -> T {
        do { return try await database.read(body) } catch { throw .storageFailed }
    }

    /// A whole table (`StoreDatabase.readAll`): ten thousand phones would hold the caller's thread.
    func readAll<T: Sendable>(_ body: @escaping @Sendable (any StoreSQL) throws -> T) async throws(PhoneError) -> T {
        do { return try await database.readAll(body) } catch { throw .storageFailed }
    }
}
