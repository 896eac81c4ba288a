import AuthFlow
import Foundation
import GRDB
import SQLiteStore

// The rows of `PhoneStore`: a phone (the device, its settings and secrets) and its accounts.

struct PhoneRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
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
}

struct AccountRecord: Codable, Sendable, FetchableRecord, PersistableRecord, StoredDatesRecord {
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

extension FlowOptions.PinChangeStyle: DatabaseValueConvertible {}
