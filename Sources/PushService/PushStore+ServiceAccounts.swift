import Foundation
import GRDB
import Storage
import _CryptoExtras

/// The senders' service accounts: one per project, its key made once and kept.
extension PushStore {
    /// The project's account, nil before anyone asked for it.
    func serviceAccount(project: String) async throws -> ServiceAccount? {
        try await read { sql in try ServiceAccountRecord.find(project, sql) }
    }

    /// Keeps `account` unless the project has one already, and returns the one kept: two first
    /// asks at once both get the same key.
    func keep(_ account: ServiceAccount) async throws -> ServiceAccount {
        try await write { sql in
            if let kept = try ServiceAccountRecord.find(account.project, sql) { return kept }
            try ServiceAccountRecord.insertion.run(ServiceAccountRecord(account), sql)
            return account
        }
    }

    /// Everything the phones' pushes left (registrations, inboxes, rate windows, the log, the
    /// composers' states); the service accounts stay, so a sender set up with a key file works on.
    public func eraseDeliveries() async throws {
        try await erase(keeping: [ServiceAccountRecord.databaseTableName])
    }
}

struct ServiceAccountRecord: Decodable, FetchableRecord {
    static let databaseTableName = "serviceAccount"
    var project: String
    var keyId: String
    var clientId: String
    /// PKCS #8 DER.
    var privateKey: Data
    var createdAt: Date

    init(_ account: ServiceAccount) {
        project = account.project
        keyId = account.keyId
        clientId = account.clientId
        privateKey = account.privateKey.pkcs8DERRepresentation
        createdAt = account.createdAt
    }

    static func find(_ project: String, _ sql: any StoreSQL) throws -> ServiceAccount? {
        try sql.fetchOne(Self.self, "SELECT * FROM serviceAccount WHERE project = ?", [project])?.account()
    }

    func account() throws -> ServiceAccount {
        ServiceAccount(
            project: project, keyId: keyId, clientId: clientId, privateKey: try _RSA.Signing.PrivateKey(derRepresentation: privateKey),
            createdAt: createdAt)
    }

    static let insertion = NamedInsert<ServiceAccountRecord>(
        into: databaseTableName,
        [
            "project": { $0.project }, "keyId": { $0.keyId }, "clientId": { $0.clientId }, "privateKey": { $0.privateKey },
            "createdAt": { StoredDate($0.createdAt) },
        ])
}
