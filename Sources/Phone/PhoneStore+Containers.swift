import Foundation
import GRDB
import Storage

/// A privacyIDEA smartphone container the phone registered (docs/privacyidea.md#containers): its
/// own signing key (a secret, kept as the tokens' keys are) and the server it synchronises with.
struct ContainerRecord: Codable, Sendable, FetchableRecord {
    static let databaseTableName = "privacyIDEAContainer"
    var phoneId: String
    var serial: String
    var issuer: String
    /// privacyIDEA's base URL, which the container's endpoints hang off.
    var serverURL: String
    var origin: String
    var sslVerify: Bool
    /// The raw P-384 scalar of the container's key.
    var signingKey: Data
    var registeredAt: Date
    var syncedAt: Date?
}

/// A token the container holds on the phone: a push token (by its serial) or an OTP account.
struct ContainerTokenRecord: Codable, Sendable, Equatable, FetchableRecord {
    static let databaseTableName = "privacyIDEAContainerToken"
    var phoneId: String
    var container: String
    var serial: String
    /// privacyIDEA's token type: `push`, `hotp` or `totp`.
    var tokentype: String
    var otpAccountId: String?
}

extension PhoneStore {
    static func createContainerTables(_ db: Database) throws {
        try db.create(table: "privacyIDEAContainer") { t in
            t.belongsTo("phone", onDelete: .cascade).notNull()
            t.column("serial", .text).notNull()
            t.column("issuer", .text).notNull()
            t.column("serverURL", .text).notNull()
            t.column("origin", .text).notNull()
            t.column("sslVerify", .boolean).notNull()
            t.column("signingKey", .blob).notNull()
            t.column("registeredAt", .datetime).notNull()
            t.column("syncedAt", .datetime)
            t.primaryKey(["phoneId", "serial"])
        }
        // a token belongs to one container; an OTP account's row goes with the account
        try db.create(table: "privacyIDEAContainerToken") { t in
            t.column("phoneId", .text).notNull()
            t.column("container", .text).notNull()
            t.column("serial", .text).notNull()
            t.column("tokentype", .text).notNull()
            t.column("otpAccountId", .text).references("otpAccount", onDelete: .cascade)
            t.primaryKey(["phoneId", "serial"])
            t.foreignKey(["phoneId", "container"], references: "privacyIDEAContainer", onDelete: .cascade)
        }
    }

    static let postgresContainerTables = [
        """
        CREATE TABLE privacyIDEAContainer (phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE, serial TEXT NOT NULL,
            issuer TEXT NOT NULL, serverURL TEXT NOT NULL, origin TEXT NOT NULL, sslVerify BIGINT NOT NULL, signingKey BYTEA NOT NULL,
            registeredAt TEXT NOT NULL, syncedAt TEXT, PRIMARY KEY (phoneId, serial))
        """,
        """
        CREATE TABLE privacyIDEAContainerToken (phoneId TEXT NOT NULL, container TEXT NOT NULL, serial TEXT NOT NULL,
            tokentype TEXT NOT NULL, otpAccountId TEXT REFERENCES otpAccount ON DELETE CASCADE, PRIMARY KEY (phoneId, serial),
            FOREIGN KEY (phoneId, container) REFERENCES privacyIDEAContainer ON DELETE CASCADE)
        """,
    ]

    /// A registered container and its server trusted from then on, together.
    func keep(_ container: ContainerRecord) async throws(PhoneError) {
        try await keep(container, by: ContainerRecord.insertion, trusting: container.origin, phoneId: container.phoneId, at: container.registeredAt)
    }

    func containers(phoneId: String) async throws(PhoneError) -> [ContainerRecord] {
        try await read { sql in
            try sql.fetchAll(ContainerRecord.self, "SELECT * FROM privacyIDEAContainer WHERE phoneId = ? ORDER BY registeredAt, serial", [phoneId])
        }
    }

    func container(phoneId: String, serial: String) async throws(PhoneError) -> ContainerRecord? {
        try await read { sql in
            try sql.fetchOne(ContainerRecord.self, "SELECT * FROM privacyIDEAContainer WHERE phoneId = ? AND serial = ?", [phoneId, serial])
        }
    }

    /// The tokens the phone's containers hold: those still on the phone (a push token deleted
    /// by hand is no longer held, and the next synchronisation brings it back).
    func containerTokens(phoneId: String) async throws(PhoneError) -> [ContainerTokenRecord] {
        try await read { sql in
            try sql.fetchAll(
                ContainerTokenRecord.self,
                """
                SELECT * FROM privacyIDEAContainerToken AS held WHERE phoneId = ? AND (otpAccountId IS NOT NULL OR EXISTS
                    (SELECT 1 FROM privacyIDEAToken AS token WHERE token.phoneId = held.phoneId AND token.serial = held.serial))
                ORDER BY container, serial
                """, [phoneId])
        }
    }

    /// The token is the container's (again, after a rollover's new secret).
    func hold(_ token: ContainerTokenRecord) async throws(PhoneError) {
        try await write { sql in try ContainerTokenRecord.insertion.run(token, sql) }
    }

    /// The token leaves the container and the phone: its OTP account (answered, as it was) or its push token.
    @discardableResult
    func release(_ token: ContainerTokenRecord) async throws(PhoneError) -> OTPAccountRecord? {
        try await write { sql in
            try sql.execute("DELETE FROM privacyIDEAContainerToken WHERE phoneId = ? AND serial = ?", [token.phoneId, token.serial])
            guard let id = token.otpAccountId else {
                try sql.execute("DELETE FROM privacyIDEAToken WHERE phoneId = ? AND serial = ?", [token.phoneId, token.serial])
                return nil
            }
            let account = try sql.fetchOne(OTPAccountRecord.self, "SELECT * FROM otpAccount WHERE id = ? AND phoneId = ?", [id, token.phoneId])
            try sql.execute("DELETE FROM otpAccount WHERE id = ? AND phoneId = ?", [id, token.phoneId])
            return account
        }
    }

    /// The container leaves the phone; its tokens stay, on their own.
    func forgetContainer(phoneId: String, serial: String) async throws(PhoneError) {
        try await write { sql in
            try sql.execute("DELETE FROM privacyIDEAContainer WHERE phoneId = ? AND serial = ?", [phoneId, serial])
        }
    }

    func noteSynced(phoneId: String, serial: String, at time: Date) async throws(PhoneError) {
        try await write { sql in
            try sql.execute(
                "UPDATE privacyIDEAContainer SET syncedAt = ? WHERE phoneId = ? AND serial = ?", [StoredDate(time), phoneId, serial])
        }
    }
}

extension ContainerRecord {
    /// A container registered again (a rollover to this phone) is written over the one it replaces.
    static let insertion = NamedInsert<ContainerRecord>(
        into: databaseTableName, replacingOn: ["phoneId", "serial"],
        [
            "phoneId": { $0.phoneId }, "serial": { $0.serial }, "issuer": { $0.issuer }, "serverURL": { $0.serverURL },
            "origin": { $0.origin }, "sslVerify": { $0.sslVerify }, "signingKey": { $0.signingKey },
            "registeredAt": { StoredDate($0.registeredAt) }, "syncedAt": { $0.syncedAt.map(StoredDate.init) },
        ])
}

extension ContainerTokenRecord {
    static let insertion = NamedInsert<ContainerTokenRecord>(
        into: databaseTableName, replacingOn: ["phoneId", "serial"],
        [
            "phoneId": { $0.phoneId }, "container": { $0.container }, "serial": { $0.serial }, "tokentype": { $0.tokentype },
            "otpAccountId": { $0.otpAccountId },
        ])
}
