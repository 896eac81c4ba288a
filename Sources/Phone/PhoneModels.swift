import AuthFlow
import Foundation
import OutOfBand
import SodiumKit

/// A simulated phone as lists show it.
public struct PhoneSummary: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var deviceId: String
    public var fcmToken: String
    /// The Firebase installation id the token carries (FirebaseInstallationID): a sender may
    /// target it instead of the token. Nil for a token set by hand without one.
    public var fid: String?
    /// Its number, E.164: where texts to it go (docs/sms.md).
    public var number: String
    public var createdAt: Date
}

/// A phone with its local data and current flow: what its screen needs after a reload.
public struct PhoneDetail: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var deviceId: String
    public var fcmToken: String
    /// The Firebase installation id the token carries (FirebaseInstallationID): a sender may
    /// target it instead of the token. Nil for a token set by hand without one.
    public var fid: String?
    /// Its number, E.164: where texts to it go (docs/sms.md).
    public var number: String
    public var createdAt: Date
    public var hasPin: Bool
    public var pinLength: Int
    public var accounts: [AccountSummary]
    public var settings: PhoneSettings
    public var biometrics: BiometricsState
    public var pushNotifications: Bool
    public var flow: Flow?
    /// The last scanned session's start (docs/behaviour.md#offline-otp): STARTING with its OTP offer, or how it ended.
    public var session: SessionStart?
    /// The privacyIDEA enrolment or challenge on screen (docs/privacyidea.md).
    public var privacyIDEA: PrivacyIDEARequest?
}

/// What a user (or the app's SDK configuration) sets on a phone: the options docs/behaviour.md#second-factor-management names
/// and 003 name.
public struct PhoneSettings: Codable, Sendable, Equatable {
    /// Open an arriving push at once instead of showing its notification (as an app in the
    /// foreground may do).
    public var openPushesAtOnce: Bool
    /// Digits of a new PIN; fixed while a PIN is set.
    public var pinLength: Int
    /// The phone has a biometric sensor (fingerprint or face) the OS finds strong enough.
    public var biometricSensor: Bool
    public var biometricsDisabled: Bool
    public var legacyBioAddFlow: Bool
    public var disallowPinChangeWithBiometric: Bool
    /// Biometric verifications in a row before the PIN is asked again (0: no limit).
    public var maxNumberSecondFactorWithoutPIN: Int
    /// Seconds since the last PIN after which the PIN is asked again (0: no limit).
    public var maxTimeSecondFactorWithoutPIN: Int
    /// Show the server's visual hash when confirming an enrolment.
    public var showVisualHash: Bool
    public var pinChangeStyle: FlowOptions.PinChangeStyle
    /// Seconds the screen waits for an unreachable backend before it offers the offline OTP by
    /// itself (the suggested minute, docs/behaviour.md#offline-otp); the user can ask for it sooner.
    public var otpCountdown: Int
    /// Ask privacyIDEA for its poll-only tokens' challenges while the screen is open, as its
    /// app's polling setting does (docs/privacyidea.md).
    public var pollPushTokens: Bool
    /// Ask for the PIN or a biometric before accepting a privacyIDEA login, whatever the token's
    /// server asks (privacyIDEA's `push_force_app_pin` asks it for its tokens anyway).
    public var unlockPushTokens: Bool

    public static let limitRange = 0...31_536_000
    public static let defaultOTPCountdown = 60
    public static let otpCountdownRange = 0...600
}

/// A settings change: only the fields given change.
public struct PhoneSettingsChange: Codable, Sendable, Equatable {
    public var openPushesAtOnce: Bool?
    public var pinLength: Int?
    public var biometricSensor: Bool?
    public var biometricsDisabled: Bool?
    public var legacyBioAddFlow: Bool?
    public var disallowPinChangeWithBiometric: Bool?
    public var maxNumberSecondFactorWithoutPIN: Int?
    public var maxTimeSecondFactorWithoutPIN: Int?
    public var showVisualHash: Bool?
    public var pinChangeStyle: FlowOptions.PinChangeStyle?
    public var otpCountdown: Int?
    public var pollPushTokens: Bool?
    public var unlockPushTokens: Bool?

    public init(
        openPushesAtOnce: Bool? = nil, pinLength: Int? = nil, biometricSensor: Bool? = nil, biometricsDisabled: Bool? = nil,
        legacyBioAddFlow: Bool? = nil, disallowPinChangeWithBiometric: Bool? = nil, maxNumberSecondFactorWithoutPIN: Int? = nil,
        maxTimeSecondFactorWithoutPIN: Int? = nil, showVisualHash: Bool? = nil, pinChangeStyle: FlowOptions.PinChangeStyle? = nil,
        otpCountdown: Int? = nil, pollPushTokens: Bool? = nil, unlockPushTokens: Bool? = nil
    ) {
        self.openPushesAtOnce = openPushesAtOnce
        self.pinLength = pinLength
        self.biometricSensor = biometricSensor
        self.biometricsDisabled = biometricsDisabled
        self.legacyBioAddFlow = legacyBioAddFlow
        self.disallowPinChangeWithBiometric = disallowPinChangeWithBiometric
        self.maxNumberSecondFactorWithoutPIN = maxNumberSecondFactorWithoutPIN
        self.maxTimeSecondFactorWithoutPIN = maxTimeSecondFactorWithoutPIN
        self.showVisualHash = showVisualHash
        self.pinChangeStyle = pinChangeStyle
        self.otpCountdown = otpCountdown
        self.pollPushTokens = pollPushTokens
        self.unlockPushTokens = unlockPushTokens
    }
}

/// The simulated sensor and the SDK's view of biometrics (docs/behaviour.md#biometrics: `canEnableBiometrics`
/// and `hasEnabledBiometrics`).
public struct BiometricsState: Codable, Sendable, Equatable {
    /// Fingerprints or faces enrolled in the phone's OS.
    public var enrolledFeatures: Int
    public var canEnableBiometrics: Bool
    /// The phone holds a biometric key. Like iOS, it learns that a changed set of enrolled
    /// features invalidated the key only when it next uses it.
    public var hasEnabledBiometrics: Bool
    public var verificationsSinceLastPin: Int
    public var lastPinAt: Date?
}

/// What a phone's screen is told. Indirect: each open screen's task holds one in its frame.
public indirect enum PhoneEvent: Sendable, Equatable {
    case flowUpdate(Flow)
    case phoneChanged(PhoneDetail)
    case operation(OperationProgress)
    case session(SessionStart)
    case otpAccount(OTPAccountChange)
    case privacyIDEA(PrivacyIDEARequest)
    /// The phone's privacyIDEA push tokens after one was added or removed.
    case pushTokens([PushTokenSummary])
    /// The phone's privacyIDEA containers after one was registered or synchronised.
    case containers([ContainerSummary])
    /// A text arrived in the Messages app.
    case textMessage(TextMessage)
}

/// A change of the device information (docs/behaviour.md#device-information-and-fcm-token-changes) as the phone asks for it.
public struct DeviceInformationChange: Codable, Sendable, Equatable {
    public var name: String?
    public var fcmToken: String?
    public var disablePushNotifications: Bool?

    public init(name: String? = nil, fcmToken: String? = nil, disablePushNotifications: Bool? = nil) {
        self.name = name
        self.fcmToken = fcmToken
        self.disablePushNotifications = disablePushNotifications
    }

    var isEmpty: Bool { name == nil && fcmToken == nil && disablePushNotifications != true }
}

/// A retried operation as the screen follows it: "attempt 2 of 4, next in 3.2 s".
public struct OperationProgress: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case running, waiting, succeeded, failed, cancelled
    }

    public struct Attempt: Codable, Sendable, Equatable {
        public var number: Int
        /// Seconds waited before this attempt.
        public var waitedBefore: Double
        /// `success`, or why it failed.
        public var outcome: String
    }

    public var id: String
    public var kind: String
    public var state: State
    public var maxAttempts: Int
    public var attempts: [Attempt]
    /// While waiting: when the next attempt starts, and how long that is from the last one.
    public var nextAttemptAt: Date?
    public var nextAttemptIn: Double?
    public var error: FlowError?
}

/// A DeviceInformationChange that succeeded: the device as the backends now know it, and every attempt.
public struct DeviceChangeResult: Codable, Sendable, Equatable {
    public var progress: OperationProgress
    public var deviceInformation: DeviceInformationView
}

/// The SDK's DeviceInformation (docs/behaviour.md#device-information-and-fcm-token-changes), as the phone holds it.
public struct DeviceInformationView: Codable, Sendable, Equatable {
    public var name: String
    public var deviceId: String
    public var fcmToken: String
    /// The Firebase installation id the token carries (FirebaseInstallationID): a sender may
    /// target it instead of the token. Nil for a token set by hand without one.
    public var fid: String?
    public var pushNotifications: Bool
    public var accounts: [AccountSummary]
}

extension PhoneRecord {
    /// The device's own key, which signs the requests no account key signs.
    func deviceKey() throws(PhoneError) -> Ed25519.KeyPair {
        do { return try Ed25519.KeyPair(seed: deviceKeySeed) } catch { throw .crypto(error.description) }
    }

    var summary: PhoneSummary {
        PhoneSummary(
            id: id, name: name, deviceId: deviceId, fcmToken: fcmToken, fid: FirebaseInstallationID.of(token: fcmToken),
            number: number, createdAt: createdAt)
    }

    var settings: PhoneSettings {
        PhoneSettings(
            openPushesAtOnce: openPushesAtOnce, pinLength: pinLength, biometricSensor: biometricSensor,
            biometricsDisabled: biometricsDisabled, legacyBioAddFlow: legacyBioAddFlow,
            disallowPinChangeWithBiometric: disallowPinChangeWithBiometric,
            maxNumberSecondFactorWithoutPIN: maxNumberSecondFactorWithoutPIN,
            maxTimeSecondFactorWithoutPIN: maxTimeSecondFactorWithoutPIN, showVisualHash: showVisualHash,
            pinChangeStyle: pinChangeStyle, otpCountdown: otpCountdown, pollPushTokens: pollPushTokens, unlockPushTokens: unlockPushTokens)
    }

    var hasEnabledBiometrics: Bool { biometricSecretKey != nil }

    /// docs/behaviour.md#biometrics: the device could take a biometric second factor (a sensor with a feature
    /// enrolled, biometrics not disabled, a PIN to add it with).
    var canEnableBiometrics: Bool { biometricsCanBeSet && pinSalt != nil }

    /// A sensor with a feature enrolled and biometrics not disabled: an enrolment that sets the
    /// PIN may set the biometric with it.
    var biometricsCanBeSet: Bool { biometricSensor && enrolledFeatures > 0 && !biometricsDisabled }

    var biometrics: BiometricsState {
        BiometricsState(
            enrolledFeatures: enrolledFeatures, canEnableBiometrics: canEnableBiometrics,
            hasEnabledBiometrics: hasEnabledBiometrics, verificationsSinceLastPin: biometricUsesSinceLastPin,
            lastPinAt: lastPinAt)
    }

    /// The `showBiometrics` conditions (docs/behaviour.md#biometrics) that belong to the phone rather than the flow.
    func biometricsAvailable(now: Date) -> Bool {
        let underCount = maxNumberSecondFactorWithoutPIN == 0 || biometricUsesSinceLastPin < maxNumberSecondFactorWithoutPIN
        let underTime =
            maxTimeSecondFactorWithoutPIN == 0
            // whole seconds: the stored time keeps milliseconds only
            || lastPinAt.map { Int(now.timeIntervalSince($0).rounded()) < maxTimeSecondFactorWithoutPIN } ?? true
        return canEnableBiometrics && hasEnabledBiometrics && underCount && underTime
    }

    func flowOptions(now: Date) -> FlowOptions {
        FlowOptions(
            biometricsAvailable: biometricsAvailable(now: now), disallowPinChangeWithBiometric: disallowPinChangeWithBiometric,
            legacyBioAddFlow: legacyBioAddFlow, pinChangeStyle: pinChangeStyle, biometricsCanBeSet: biometricsCanBeSet)
    }

    /// The biometric key, unless the enrolled features changed since it was made.
    var validBiometricKey: Data? {
        guard let key = biometricSecretKey, biometricKeySetVersion == featureSetVersion, enrolledFeatures > 0 else { return nil }
        return key
    }

    /// Applies a settings change, or names the field that cannot take it.
    mutating func apply(_ change: PhoneSettingsChange) throws(PhoneError) {
        if let length = change.pinLength, length != pinLength {
            guard PinPolicy.allowedLengths.contains(length) else {
                throw .invalid("pinLength", "must be between \(PinPolicy.allowedLengths.lowerBound) and \(PinPolicy.allowedLengths.upperBound)")
            }
            guard pinSalt == nil else {
                throw PhoneError(.conflict, "PIN_SET", "the PIN length can change only while no PIN is set (remove all accounts first)")
            }
            pinLength = length
        }
        for (field, value) in [
            ("maxNumberSecondFactorWithoutPIN", change.maxNumberSecondFactorWithoutPIN),
            ("maxTimeSecondFactorWithoutPIN", change.maxTimeSecondFactorWithoutPIN),
        ] {
            if let value, !PhoneSettings.limitRange.contains(value) {
                throw .invalid(field, "must be between 0 (no limit) and \(PhoneSettings.limitRange.upperBound)")
            }
        }
        if let countdown = change.otpCountdown, !PhoneSettings.otpCountdownRange.contains(countdown) {
            throw .invalid("otpCountdown", "must be between 0 and \(PhoneSettings.otpCountdownRange.upperBound) seconds")
        }
        openPushesAtOnce = change.openPushesAtOnce ?? openPushesAtOnce
        biometricSensor = change.biometricSensor ?? biometricSensor
        biometricsDisabled = change.biometricsDisabled ?? biometricsDisabled
        legacyBioAddFlow = change.legacyBioAddFlow ?? legacyBioAddFlow
        disallowPinChangeWithBiometric = change.disallowPinChangeWithBiometric ?? disallowPinChangeWithBiometric
        maxNumberSecondFactorWithoutPIN = change.maxNumberSecondFactorWithoutPIN ?? maxNumberSecondFactorWithoutPIN
        maxTimeSecondFactorWithoutPIN = change.maxTimeSecondFactorWithoutPIN ?? maxTimeSecondFactorWithoutPIN
        showVisualHash = change.showVisualHash ?? showVisualHash
        pinChangeStyle = change.pinChangeStyle ?? pinChangeStyle
        otpCountdown = change.otpCountdown ?? otpCountdown
        pollPushTokens = change.pollPushTokens ?? pollPushTokens
        unlockPushTokens = change.unlockPushTokens ?? unlockPushTokens
    }
}

extension AccountRecord {
    var summary: AccountSummary {
        AccountSummary(
            id: id, userId: userId, displayName: displayName,
            server: ServerSummary(name: serverName, url: serverURL), createdAt: createdAt)
    }
}

/// The SDK's LocalData (docs/behaviour.md#local-data): what the phone holds, and nothing the server holds.
public struct LocalData: Codable, Sendable, Equatable {
    public var deviceInformation: DeviceInformationView
    public var accounts: [AccountSummary]
    public var authenticators: [Authenticator]
}

/// A second factor the phone holds for its accounts. AuthPhone's factors belong to the device,
/// so every account of a user shares them.
public struct Authenticator: Codable, Sendable, Equatable {
    /// `PIN` or `BIOMETRICS` (the SDK's AAIDs, by name).
    public var aaid: String
    public var userIds: [String]
    public var registered: Bool
    /// For biometrics: whether the enrolled features changed since the key was made.
    public var invalidated: Bool?
}
