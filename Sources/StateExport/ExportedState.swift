import Foundation

/// What `authphone export` carries, opened: the phones as their owners set them up and the demo
/// backend's side of them, enough for the same phones to log in on a server that loads it. The
/// secret material stands apart (`Secrets`, keyed by the ids of what it belongs to), so that the
/// file can show the rest in clear and seal only that. Sessions, pushes in flight, the push log
/// and the timeline are left out: they are what a run did, not what the next one starts from.
public struct ExportedState: Sendable, Equatable {
    public var phones: [Phone]
    public var backend: Backend
    public var secrets: Secrets

    public init(phones: [Phone], backend: Backend, secrets: Secrets) {
        self.phones = phones
        self.backend = backend
        self.secrets = secrets
    }

    /// A simulated phone: its identity, settings, simulated sensor and accounts.
    public struct Phone: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var deviceId: String
        public var fcmToken: String
        /// E.164; absent in a file written before phones had numbers (the import gives one).
        public var number: String?
        public var pinLength: Int
        public var createdAt: Date
        public var settings: Settings
        public var biometrics: Biometrics
        public var accounts: [Account]
        /// Absent when the phone has none, so that such a phone's export is what it was before
        /// OTP accounts were kept (and an older file reads as it did).
        public var otpAccounts: [OTPAccount]?
        /// Absent, as the OTP accounts, when the phone has none.
        public var privacyIDEATokens: [PrivacyIDEAToken]?
        public var privacyIDEAServers: [PrivacyIDEAServer]?
        /// Absent, as the OTP accounts, when the phone has none.
        public var privacyIDEAContainers: [PrivacyIDEAContainer]?
        /// Absent, as the OTP accounts, when the phone has none.
        public var tiqrIdentities: [TiqrIdentity]?

        public init(
            id: String, name: String, deviceId: String, fcmToken: String, number: String? = nil, pinLength: Int, createdAt: Date, settings: Settings,
            biometrics: Biometrics, accounts: [Account], otpAccounts: [OTPAccount]? = nil, privacyIDEATokens: [PrivacyIDEAToken]? = nil,
            privacyIDEAServers: [PrivacyIDEAServer]? = nil, privacyIDEAContainers: [PrivacyIDEAContainer]? = nil,
            tiqrIdentities: [TiqrIdentity]? = nil
        ) {
            self.id = id
            self.name = name
            self.deviceId = deviceId
            self.fcmToken = fcmToken
            self.number = number
            self.pinLength = pinLength
            self.createdAt = createdAt
            self.settings = settings
            self.biometrics = biometrics
            self.accounts = accounts
            self.otpAccounts = otpAccounts
            self.privacyIDEATokens = privacyIDEATokens
            self.privacyIDEAServers = privacyIDEAServers
            self.privacyIDEAContainers = privacyIDEAContainers
            self.tiqrIdentities = tiqrIdentities
        }
    }

    /// What the phone's owner set (docs/behaviour.md names each).
    public struct Settings: Codable, Sendable, Equatable {
        public var openPushesAtOnce: Bool
        public var pushNotificationsDisabled: Bool
        public var biometricSensor: Bool
        public var biometricsDisabled: Bool
        public var legacyBioAddFlow: Bool
        public var disallowPinChangeWithBiometric: Bool
        public var maxNumberSecondFactorWithoutPIN: Int
        public var maxTimeSecondFactorWithoutPIN: Int
        public var showVisualHash: Bool
        public var pinChangeStyle: String
        public var otpCountdown: Int
        /// The privacyIDEA settings; absent in a file written before them (their defaults then).
        public var pollPushTokens: Bool?
        public var unlockPushTokens: Bool?

        public init(
            openPushesAtOnce: Bool, pushNotificationsDisabled: Bool, biometricSensor: Bool, biometricsDisabled: Bool, legacyBioAddFlow: Bool,
            disallowPinChangeWithBiometric: Bool, maxNumberSecondFactorWithoutPIN: Int, maxTimeSecondFactorWithoutPIN: Int, showVisualHash: Bool,
            pinChangeStyle: String, otpCountdown: Int, pollPushTokens: Bool? = nil, unlockPushTokens: Bool? = nil
        ) {
            self.openPushesAtOnce = openPushesAtOnce
            self.pushNotificationsDisabled = pushNotificationsDisabled
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

    /// The simulated sensor and the PIN-less counts (the biometric key itself is a secret).
    public struct Biometrics: Codable, Sendable, Equatable {
        public var enrolledFeatures: Int
        public var featureSetVersion: Int
        public var keySetVersion: Int?
        public var usesSinceLastPin: Int
        public var lastPinAt: Date?

        public init(enrolledFeatures: Int, featureSetVersion: Int, keySetVersion: Int?, usesSinceLastPin: Int, lastPinAt: Date?) {
            self.enrolledFeatures = enrolledFeatures
            self.featureSetVersion = featureSetVersion
            self.keySetVersion = keySetVersion
            self.usesSinceLastPin = usesSinceLastPin
            self.lastPinAt = lastPinAt
        }
    }

    /// An account on the phone, with the server key it pinned at enrolment.
    public struct Account: Codable, Sendable, Equatable {
        public var id: String
        public var userId: String
        public var displayName: String
        public var serverName: String
        public var serverURL: String
        public var serverPublicKey: Data
        public var createdAt: Date
        public var otpReference: UInt32?

        public init(
            id: String, userId: String, displayName: String, serverName: String, serverURL: String, serverPublicKey: Data, createdAt: Date,
            otpReference: UInt32?
        ) {
            self.id = id
            self.userId = userId
            self.displayName = displayName
            self.serverName = serverName
            self.serverURL = serverURL
            self.serverPublicKey = serverPublicKey
            self.createdAt = createdAt
            self.otpReference = otpReference
        }
    }

    /// An otpauth:// account on the phone (TOTP with a period, HOTP with a counter); its key is a secret.
    public struct OTPAccount: Codable, Sendable, Equatable {
        public var id: String
        /// `totp` or `hotp`.
        public var kind: String
        public var issuer: String?
        public var label: String
        public var algorithm: String
        public var digits: Int
        public var period: Int?
        public var counter: UInt64?
        public var createdAt: Date

        public init(
            id: String, kind: String, issuer: String?, label: String, algorithm: String, digits: Int, period: Int?, counter: UInt64?,
            createdAt: Date
        ) {
            self.id = id
            self.kind = kind
            self.issuer = issuer
            self.label = label
            self.algorithm = algorithm
            self.digits = digits
            self.period = period
            self.counter = counter
            self.createdAt = createdAt
        }
    }

    /// The demo backend's accounts, devices, Second Factor Server records and console settings.
    public struct Backend: Codable, Sendable, Equatable {
        public var accounts: [BackendAccount]
        public var devices: [Device]
        public var secondFactors: [SecondFactor]
        public var policy: Policy?
        public var serverFlags: [ServerFlag]

        public init(accounts: [BackendAccount], devices: [Device], secondFactors: [SecondFactor], policy: Policy?, serverFlags: [ServerFlag]) {
            self.accounts = accounts
            self.devices = devices
            self.secondFactors = secondFactors
            self.policy = policy
            self.serverFlags = serverFlags
        }
    }

    /// An account as the backend knows it: the account's public key and its offline OTP's state.
    public struct BackendAccount: Codable, Sendable, Equatable {
        public var id: String
        public var userId: String
        public var displayName: String
        public var deviceId: String
        public var publicKey: Data
        public var createdAt: Date
        public var otpReference: UInt32?
        public var otpFailures: Int
        public var otpLastStep: Int64?

        public init(
            id: String, userId: String, displayName: String, deviceId: String, publicKey: Data, createdAt: Date, otpReference: UInt32?,
            otpFailures: Int, otpLastStep: Int64?
        ) {
            self.id = id
            self.userId = userId
            self.displayName = displayName
            self.deviceId = deviceId
            self.publicKey = publicKey
            self.createdAt = createdAt
            self.otpReference = otpReference
            self.otpFailures = otpFailures
            self.otpLastStep = otpLastStep
        }
    }

    /// Device information a phone gave at enrolment.
    public struct Device: Codable, Sendable, Equatable {
        public var deviceId: String
        public var name: String
        public var fcmToken: String?
        public var updatedAt: Date

        public init(deviceId: String, name: String, fcmToken: String?, updatedAt: Date) {
            self.deviceId = deviceId
            self.name = name
            self.fcmToken = fcmToken
            self.updatedAt = updatedAt
        }
    }

    /// A device's record at the Second Factor Server, its counters included (the PIN's public
    /// key is a secret: with the phone's salt it is a PIN verifier).
    public struct SecondFactor: Codable, Sendable, Equatable {
        public var deviceId: String
        public var failedAttempts: Int
        public var isBlocked: Bool
        public var penalisedUntil: Date?
        public var updatedAt: Date
        public var biometricPublicKey: Data?
        public var devicePublicKey: Data?

        public init(
            deviceId: String, failedAttempts: Int, isBlocked: Bool, penalisedUntil: Date?, updatedAt: Date, biometricPublicKey: Data?,
            devicePublicKey: Data?
        ) {
            self.deviceId = deviceId
            self.failedAttempts = failedAttempts
            self.isBlocked = isBlocked
            self.penalisedUntil = penalisedUntil
            self.updatedAt = updatedAt
            self.biometricPublicKey = biometricPublicKey
            self.devicePublicKey = devicePublicKey
        }
    }

    /// The wrong-PIN policy the console set, if it set one.
    public struct Policy: Codable, Sendable, Equatable {
        public var maxAttempts: Int
        public var penalties: [Int]
        public var updatedAt: Date

        public init(maxAttempts: Int, penalties: [Int], updatedAt: Date) {
            self.maxAttempts = maxAttempts
            self.penalties = penalties
            self.updatedAt = updatedAt
        }
    }

    public struct ServerFlag: Codable, Sendable, Equatable {
        public var name: String
        public var enabled: Bool
        public var updatedAt: Date

        public init(name: String, enabled: Bool, updatedAt: Date) {
            self.name = name
            self.enabled = enabled
            self.updatedAt = updatedAt
        }
    }
}
