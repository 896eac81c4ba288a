import Foundation
import GRDB
import OTP
import PrivacyIDEA
import StateExport
import Storage

/// A tiqr identity the phone enrolled (docs/privacyidea.md#tiqr): the service and the user it
/// answers for, where it answers, and its OCRA secret (kept as the tokens' keys are). The app
/// keys it by the service's identifier and the identity, which a login code names.
struct TiqrIdentityRecord: Codable, Sendable, FetchableRecord {
    static let databaseTableName = "tiqrIdentity"
    var phoneId: String
    var serviceIdentifier: String
    var identity: String
    var identityName: String
    var serviceName: String
    /// privacyIDEA's serial of the token, where the enrolment code named it.
    var serial: String?
    var authenticationURL: String
    var origin: String
    var ocraSuite: String
    var secret: Data
    var enrolledAt: Date

    /// How the token lists and deletes it: privacyIDEA's serial, or the identity at its service.
    var listedSerial: String { serial ?? "\(identity)@\(serviceIdentifier)" }

    /// The identity as the screen names it: its display name, or its identifier without one.
    var shownName: String { identityName.isEmpty ? identity : identityName }
}

extension PhoneStore {
    /// The tiqr identities' table, with the engine's name for bytes: the same on both otherwise.
    static func tiqrTable(bytes: String) -> String {
        """
        CREATE TABLE tiqrIdentity (phoneId TEXT NOT NULL REFERENCES phone ON DELETE CASCADE, serviceIdentifier TEXT NOT NULL,
            identity TEXT NOT NULL, identityName TEXT NOT NULL, serviceName TEXT NOT NULL, serial TEXT,
            authenticationURL TEXT NOT NULL, origin TEXT NOT NULL, ocraSuite TEXT NOT NULL, secret \(bytes) NOT NULL,
            enrolledAt TEXT NOT NULL, PRIMARY KEY (phoneId, serviceIdentifier, identity))
        """
    }

    /// An enrolled identity (again: its new secret replaces the old) and its server trusted from then on.
    func keep(_ identity: TiqrIdentityRecord) async throws(PhoneError) {
        try await keep(identity, by: TiqrIdentityRecord.insertion, trusting: identity.origin, phoneId: identity.phoneId, at: identity.enrolledAt)
    }

    func tiqrIdentities(phoneId: String) async throws(PhoneError) -> [TiqrIdentityRecord] {
        try await read { sql in
            try sql.fetchAll(TiqrIdentityRecord.self, "SELECT * FROM tiqrIdentity WHERE phoneId = ? ORDER BY enrolledAt, identity", [phoneId])
        }
    }

    func tiqrIdentity(phoneId: String, service: String, identity: String) async throws(PhoneError) -> TiqrIdentityRecord? {
        try await read { sql in
            try sql.fetchOne(
                TiqrIdentityRecord.self, "SELECT * FROM tiqrIdentity WHERE phoneId = ? AND serviceIdentifier = ? AND identity = ?",
                [phoneId, service, identity])
        }
    }

    /// Removes the identity listed as `serial`; false when there was none.
    func deleteTiqrIdentity(phoneId: String, serial: String) async throws(PhoneError) -> Bool {
        try await write { sql in
            let held = try sql.fetchAll(TiqrIdentityRecord.self, "SELECT * FROM tiqrIdentity WHERE phoneId = ?", [phoneId])
            guard let found = held.first(where: { $0.listedSerial == serial }) else { return false }
            return try sql.execute(
                "DELETE FROM tiqrIdentity WHERE phoneId = ? AND serviceIdentifier = ? AND identity = ?",
                [phoneId, found.serviceIdentifier, found.identity]) > 0
        }
    }
}

extension TiqrIdentityRecord {
    static let insertion = NamedInsert<TiqrIdentityRecord>(
        into: databaseTableName, replacingOn: ["phoneId", "serviceIdentifier", "identity"],
        [
            "phoneId": { $0.phoneId }, "serviceIdentifier": { $0.serviceIdentifier }, "identity": { $0.identity },
            "identityName": { $0.identityName }, "serviceName": { $0.serviceName }, "serial": { $0.serial },
            "authenticationURL": { $0.authenticationURL }, "origin": { $0.origin }, "ocraSuite": { $0.ocraSuite }, "secret": { $0.secret },
            "enrolledAt": { StoredDate($0.enrolledAt) },
        ])
}

extension TiqrIdentityRecord {
    var exported: ExportedState.TiqrIdentity {
        ExportedState.TiqrIdentity(
            serviceIdentifier: serviceIdentifier, identity: identity, identityName: identityName, serviceName: serviceName, serial: serial,
            authenticationURL: authenticationURL, origin: origin, ocraSuite: ocraSuite, enrolledAt: enrolledAt)
    }

    /// The row of an exported identity: its suite one the phone answers, a secret, and an
    /// http(s) address to answer at.
    static func loaded(_ identity: ExportedState.TiqrIdentity, phoneId: String, secret: Data) throws -> TiqrIdentityRecord {
        _ = try OCRA(suite: identity.ocraSuite)
        guard !secret.isEmpty else { throw StateExportError.invalid("its secret is empty") }
        guard let url = URL(string: identity.authenticationURL), PushEnrolment.isServerURL(url) else {
            throw StateExportError.invalid("its authenticationURL '\(identity.authenticationURL)' is not an http(s) address")
        }
        guard PushTokenRecord.isAddress(identity.origin, of: identity.origin) else {
            throw StateExportError.invalid("its server '\(identity.origin)' is not an http(s) origin")
        }
        return TiqrIdentityRecord(
            phoneId: phoneId, serviceIdentifier: identity.serviceIdentifier, identity: identity.identity, identityName: identity.identityName,
            serviceName: identity.serviceName, serial: identity.serial, authenticationURL: identity.authenticationURL, origin: identity.origin,
            ocraSuite: identity.ocraSuite, secret: secret, enrolledAt: identity.enrolledAt)
    }
}
