import Foundation
import GRDB
import Storage

/// A privacyIDEA push token the phone enrolled: its own key (a secret, kept as the accounts'
/// keys are) and the key privacyIDEA signs its challenges with.
struct PushTokenRecord: Codable, Sendable, FetchableRecord {
    static let databaseTableName = "privacyIDEAToken"
    var phoneId: String
    var serial: String
    var label: String
    var issuer: String
    var url: String
    var origin: String
    var sslVerify: Bool
    var pollOnly: Bool
    var requiresUnlock: Bool
    /// The one factor privacyIDEA's `app_force_unlock` allows (`PIN` or `BIOMETRIC`); nil: either.
    var unlockFactor: String?
    /// PKCS #8 DER of the token's RSA key.
    var tokenKey: Data
    var serverKey: String
    /// The FCM token privacyIDEA knows for this token.
    var fcmToken: String
    var createdAt: Date
}

/// A privacyIDEA server the phone's user accepted.
struct PrivacyIDEAOriginRecord: Codable, Sendable, FetchableRecord {
    static let databaseTableName = "privacyIDEAOrigin"
    var phoneId: String
    var origin: String
    var acceptedAt: Date

    /// Kept once: accepted again, it keeps its first time.
    func insert(_ sql: any StoreSQL) throws {
        try sql.execute(
            "INSERT INTO privacyIDEAOrigin (phoneId, origin, acceptedAt) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [phoneId, origin, StoredDate(acceptedAt)])
    }
}

extension PhoneStore {
    static func createPrivacyIDEATables(_ db: Database) throws {
        try db.create(table: "privacyIDEAToken") { t in
            t.belongsTo("phone", onDelete: .cascade).notNull()
            t.column("serial", .text).notNull()
            t.column("label", .text).notNull()
            t.column("issuer", .text).notNull()
            t.column("url", .text).notNull()
            t.column("origin", .text).notNull()
            t.column("sslVerify", .boolean).notNull()
            t.column("pollOnly", .boolean).notNull()
            t.column("requiresUnlock", .boolean).notNull()
            t.column("tokenKey", .blob).notNull()
            t.column("serverKey", .text).notNull()
            t.column("fcmToken", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.primaryKey(["phoneId", "serial"])
        }
        // The privacyIDEA servers the phone's user accepted (docs/privacyidea.md): only these get a registration.
        try db.create(table: "privacyIDEAOrigin") { t in
            t.belongsTo("phone", onDelete: .cascade).notNull()
            t.column("origin", .text).notNull()
            t.column("acceptedAt", .datetime).notNull()
            t.primaryKey(["phoneId", "origin"])
        }
        // Challenges answered, so that a replayed one is refused.
        try db.create(table: "privacyIDEAAnswer") { t in
            t.belongsTo("phone", onDelete: .cascade).notNull()
            t.column("serial", .text).notNull()
            t.column("nonce", .text).notNull()
            t.column("answeredAt", .datetime).notNull()
            t.primaryKey(["phoneId", "serial", "nonce"])
        }
    }

    func pushTokens(phoneId: String) async throws(PhoneError) -> [PushTokenRecord] {
        try await read { sql in
            try sql.fetchAll(PushTokenRecord.self, "SELECT * FROM privacyIDEAToken WHERE phoneId = ? ORDER BY createdAt", [phoneId])
        }
    }

    func pushToken(phoneId: String, serial: String) async throws(PhoneError) -> PushTokenRecord? {
        try await read { sql in
            try sql.fetchOne(PushTokenRecord.self, "SELECT * FROM privacyIDEAToken WHERE phoneId = ? AND serial = ?", [phoneId, serial])
        }
    }

    /// A registered token (new, or enrolled again with the same serial: privacyIDEA's rollover)
    /// and its server trusted from then on, together: a registration that failed leaves the phone
    /// trusting no more than before.
    func keep(_ token: PushTokenRecord, trusting origin: String) async throws(PhoneError) {
        try await keep(token, by: PushTokenRecord.insertion, trusting: origin, phoneId: token.phoneId, at: token.createdAt)
    }

    /// A registered token, container or tiqr identity and the server it registered with, trusted
    /// from then on, in one transaction.
    func keep<Record: Sendable>(
        _ record: Record, by insertion: NamedInsert<Record>, trusting origin: String, phoneId: String, at time: Date
    ) async throws(PhoneError) {
        try await write { sql in
            try insertion.run(record, sql)
            try PrivacyIDEAOriginRecord(phoneId: phoneId, origin: origin, acceptedAt: time).insert(sql)
        }
    }

    /// The FCM token privacyIDEA now knows for each of the phone's push tokens.
    func setFCMToken(_ fcmToken: String, ofPushTokensOf phoneId: String) async throws(PhoneError) {
        try await write { sql in try sql.execute("UPDATE privacyIDEAToken SET fcmToken = ? WHERE phoneId = ?", [fcmToken, phoneId]) }
    }

    func deletePushToken(phoneId: String, serial: String) async throws(PhoneError) -> Bool {
        try await write { sql in try sql.execute("DELETE FROM privacyIDEAToken WHERE phoneId = ? AND serial = ?", [phoneId, serial]) > 0 }
    }

    func isAccepted(origin: String, phoneId: String) async throws(PhoneError) -> Bool {
        try await read { sql in
            try sql.fetchOne(Bool.self, "SELECT 1 FROM privacyIDEAOrigin WHERE phoneId = ? AND origin = ?", [phoneId, origin]) ?? false
        }
    }

    /// Notes an answered challenge; false when it was answered before (a replay).
    func noteAnswered(phoneId: String, serial: String, nonce: String, at time: Date) async throws(PhoneError) -> Bool {
        try await write { sql in
            try sql.execute(
                "INSERT INTO privacyIDEAAnswer (phoneId, serial, nonce, answeredAt) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [phoneId, serial, nonce, StoredDate(time)]) == 1
        }
    }

    func wasAnswered(phoneId: String, serial: String, nonce: String) async throws(PhoneError) -> Bool {
        try await read { sql in
            try sql.fetchOne(
                Bool.self, "SELECT 1 FROM privacyIDEAAnswer WHERE phoneId = ? AND serial = ? AND nonce = ?", [phoneId, serial, nonce])
                ?? false
        }
    }
}

extension PushTokenRecord {
    /// Writes a token enrolled again with the same serial over the one it replaces.
    static let insertion = NamedInsert<PushTokenRecord>(
        into: databaseTableName, replacingOn: ["phoneId", "serial"],
        [
            "phoneId": { $0.phoneId }, "serial": { $0.serial }, "label": { $0.label }, "issuer": { $0.issuer }, "url": { $0.url },
            "origin": { $0.origin }, "sslVerify": { $0.sslVerify }, "pollOnly": { $0.pollOnly }, "requiresUnlock": { $0.requiresUnlock },
            "unlockFactor": { $0.unlockFactor },
            "tokenKey": { $0.tokenKey }, "serverKey": { $0.serverKey }, "fcmToken": { $0.fcmToken },
            "createdAt": { StoredDate($0.createdAt) },
        ])
}
