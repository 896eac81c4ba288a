import BackendAPI
import Foundation
import GRDB
import Storage

public enum SessionStatus: String, Codable, Sendable, DatabaseValueConvertible {
    /// `verified`: a management flow's factor was accepted and its change may follow;
    /// `completed`: a management flow or key rotation made its change.
    case pending, redeemed, confirmed, verified, enrolled, loggedin, signed, completed, failed, canceled, expired

    public var isFinal: Bool { [.enrolled, .loggedin, .signed, .completed, .failed, .canceled, .expired].contains(self) }
}

struct SessionRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
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
    /// What the console set the phone to announce (docs/behaviour.md#user-interaction); the
    /// server's name and the user when nil. Set at creation only, so `update` leaves them be.
    var announceInfo: [String: String]? = nil
    var announceLogo: String? = nil
    /// The steps the configuration skips for this session (seed 001), fixed at creation.
    var skipConfirmation = false
    var skipSecondFactor = false
    /// When a throttled push goes again; nil once it went (or failed for good).
    var pushRetryAt: Date? = nil

    enum Columns {
        static let createdAt = Column(CodingKeys.createdAt)
    }

    var sessionType: WireSessionType? { WireSessionType(rawValue: type) }
}

struct AccountRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
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
struct ServerFlagRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
    static let databaseTableName = "serverFlag"
    var name: String
    var enabled: Bool
    var updatedAt: Date
}

/// Device information the phone gave at enrolment.
struct DeviceRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
    static let databaseTableName = "device"
    var deviceId: String
    var name: String
    var fcmToken: String?
    var updatedAt: Date
}

struct SecondFactorRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
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

struct SecondFactorPolicyRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
    static let databaseTableName = "secondFactorPolicy"
    var id = 1
    var maxAttempts: Int
    /// JSON array of seconds.
    var penalties: [Int]
    var updatedAt: Date

    var policy: SecondFactorPolicy { SecondFactorPolicy(maxAttempts: maxAttempts, penalties: penalties) }
}

struct ServerKeyRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
    static let databaseTableName = "serverKey"
    var id: Int
    var secretKey: Data
    var createdAt: Date
}

// Each table's INSERT, its columns named beside their values once; a setting's (a device, the
// policy, a flag, the server key) writes over the row with its key.
extension AccountRecord {
    static let insertion = NamedInsert<AccountRecord>(
        into: databaseTableName,
        [
            "id": { $0.id }, "userId": { $0.userId }, "displayName": { $0.displayName }, "deviceId": { $0.deviceId },
            "publicKey": { $0.publicKey }, "createdAt": { StoredDate($0.createdAt) }, "otpReference": { $0.otpReference },
            "otpKey": { $0.otpKey }, "otpFailures": { $0.otpFailures }, "otpLastStep": { $0.otpLastStep },
        ])
}

extension DeviceRecord {
    static let insertion = NamedInsert<DeviceRecord>(
        into: databaseTableName, replacingOn: ["deviceId"],
        ["deviceId": { $0.deviceId }, "name": { $0.name }, "fcmToken": { $0.fcmToken }, "updatedAt": { StoredDate($0.updatedAt) }])
}

extension SecondFactorRecord {
    static let insertion = NamedInsert<SecondFactorRecord>(
        into: databaseTableName,
        [
            "deviceId": { $0.deviceId }, "pinPublicKey": { $0.pinPublicKey }, "failedAttempts": { $0.failedAttempts },
            "isBlocked": { $0.isBlocked }, "penalisedUntil": { $0.penalisedUntil.map(StoredDate.init) },
            "updatedAt": { StoredDate($0.updatedAt) }, "biometricPublicKey": { $0.biometricPublicKey },
            "devicePublicKey": { $0.devicePublicKey },
        ])
}

extension SecondFactorPolicyRecord {
    static let insertion = NamedInsert<SecondFactorPolicyRecord>(
        into: databaseTableName, replacingOn: ["id"],
        [
            "id": { $0.id }, "maxAttempts": { $0.maxAttempts }, "penalties": { try jsonText($0.penalties) },
            "updatedAt": { StoredDate($0.updatedAt) },
        ])
}

extension ServerFlagRecord {
    static let insertion = NamedInsert<ServerFlagRecord>(
        into: databaseTableName, replacingOn: ["name"],
        ["name": { $0.name }, "enabled": { $0.enabled }, "updatedAt": { StoredDate($0.updatedAt) }])
}

extension ServerKeyRecord {
    static let insertion = NamedInsert<ServerKeyRecord>(
        into: databaseTableName, replacingOn: ["id"],
        ["id": { $0.id }, "secretKey": { $0.secretKey }, "createdAt": { StoredDate($0.createdAt) }])
}
