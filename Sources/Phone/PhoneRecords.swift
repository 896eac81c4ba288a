import AuthFlow
import Foundation
import GRDB
import Storage

// The rows of `PhoneStore`: a phone (the device, its settings and secrets), its accounts, and its
// OTP accounts.

struct PhoneRecord: Codable, Sendable, FetchableRecord {
    static let databaseTableName = "phone"
    var id: String
    var name: String
    var deviceId: String
    var fcmToken: String
    /// E.164 (`PhoneNumber`): where the SMS gateway delivers its texts; unique on a server.
    var number: String
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
    var pollPushTokens = true
    var unlockPushTokens = false
    /// The device key's seed; a new device identity gets a new one.
    var deviceKeySeed = Data()
    /// The public half of the PIN's key under `pinSalt`, as the Second Factor Server holds it:
    /// how the phone tells a rule's PIN is its own without trying it there. Learnt when a PIN
    /// is set or accepted; not a secret, though each guess at it costs an Argon2id run.
    var pinPublicKey: Data?
}

struct AccountRecord: Codable, Sendable, FetchableRecord {
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
}

/// An otpauth:// account: what its key URI said, its secret, and (HOTP) where its counter stands.
/// A TOTP account has a period and no counter, an HOTP account the reverse (the table checks it).
struct OTPAccountRecord: Codable, Sendable, FetchableRecord {
    static let databaseTableName = "otpAccount"
    var id: String
    var phoneId: String
    /// Empty when the key URI named no issuer (so that the table's uniqueness holds without one).
    var issuer: String
    var label: String
    var algorithm: String
    var digits: Int
    var period: Int?
    var counter: UInt64?
    /// The key the codes are made from: kept as the account keys are, never answered.
    var secret: Data
    var createdAt: Date
}

extension FlowOptions.PinChangeStyle: DatabaseValueConvertible {}

extension PhoneRecord {
    static let insertion = NamedInsert<PhoneRecord>(
        into: databaseTableName,
        [
            "id": { $0.id }, "name": { $0.name }, "deviceId": { $0.deviceId }, "fcmToken": { $0.fcmToken }, "number": { $0.number },
            "pinLength": { $0.pinLength },
            "pinSalt": { $0.pinSalt }, "createdAt": { StoredDate($0.createdAt) }, "openPushesAtOnce": { $0.openPushesAtOnce },
            "biometricSensor": { $0.biometricSensor }, "biometricsDisabled": { $0.biometricsDisabled },
            "legacyBioAddFlow": { $0.legacyBioAddFlow }, "disallowPinChangeWithBiometric": { $0.disallowPinChangeWithBiometric },
            "maxNumberSecondFactorWithoutPIN": { $0.maxNumberSecondFactorWithoutPIN },
            "maxTimeSecondFactorWithoutPIN": { $0.maxTimeSecondFactorWithoutPIN }, "showVisualHash": { $0.showVisualHash },
            "pinChangeStyle": { $0.pinChangeStyle }, "enrolledFeatures": { $0.enrolledFeatures },
            "featureSetVersion": { $0.featureSetVersion }, "biometricSecretKey": { $0.biometricSecretKey },
            "biometricKeySetVersion": { $0.biometricKeySetVersion }, "biometricUsesSinceLastPin": { $0.biometricUsesSinceLastPin },
            "lastPinAt": { $0.lastPinAt.map(StoredDate.init) }, "pushNotificationsDisabled": { $0.pushNotificationsDisabled },
            "otpCountdown": { $0.otpCountdown }, "pollPushTokens": { $0.pollPushTokens }, "unlockPushTokens": { $0.unlockPushTokens },
            "deviceKeySeed": { $0.deviceKeySeed }, "pinPublicKey": { $0.pinPublicKey },
        ])
}

extension AccountRecord {
    static let insertion = NamedInsert<AccountRecord>(
        into: databaseTableName,
        [
            "id": { $0.id }, "phoneId": { $0.phoneId }, "userId": { $0.userId }, "displayName": { $0.displayName },
            "serverName": { $0.serverName }, "serverURL": { $0.serverURL }, "serverPublicKey": { $0.serverPublicKey },
            "secretKey": { $0.secretKey }, "createdAt": { StoredDate($0.createdAt) }, "otpReference": { $0.otpReference },
            "otpKey": { $0.otpKey },
        ])
}
