import Foundation

// The wire of a session between the simulated phone and the demo backend (redeem, confirm, the
// second factor's proof, abandon): the only types the two share. Keys, signatures and challenges
// travel as base64url text.

public enum WireSessionType: String, Codable, Sendable, CaseIterable {
    case enrol
    case login
    case transaction
    /// The backend asks a phone to rotate an account key, with no user input (HEADLESS_UPGRADE).
    case upgrade
    /// Started by the phone itself for its second factors (`/api/backend/management`).
    case changePin
    case addBiometrics
    case removeBiometrics

    /// The types a phone starts itself; the console cannot.
    public static let management: Set<WireSessionType> = [.changePin, .addBiometrics, .removeBiometrics]
}

public struct WireServer: Codable, Sendable, Equatable {
    public var name: String
    public var url: String
    public var publicKey: String

    public init(name: String, url: String, publicKey: String) {
        self.name = name
        self.url = url
        self.publicKey = publicKey
    }
}

public struct WireSecondFactorAccount: Codable, Sendable, Equatable {
    public var isBlocked: Bool
    public var failedAttempts: Int
    public var maxAttempts: Int
    public var penalisedFor: Int
    public var penalisedUntil: Date?

    public init(isBlocked: Bool, failedAttempts: Int, maxAttempts: Int, penalisedFor: Int, penalisedUntil: Date?) {
        self.isBlocked = isBlocked
        self.failedAttempts = failedAttempts
        self.maxAttempts = maxAttempts
        self.penalisedFor = penalisedFor
        self.penalisedUntil = penalisedUntil
    }
}

/// A device's requests that no account key signs (redeem, an enrolment's confirm and proof,
/// abandon) are signed by the device's own key: the device id alone is public and proves nothing.
public struct RedeemRequest: Codable, Sendable {
    public var token: String
    public var deviceId: String
    /// The device's own Ed25519 key; a device the Second Factor Server knows must present the
    /// key it registered with, and the session is bound to it.
    public var devicePublicKey: String
    /// Over `SignedMessage.redeem`.
    public var deviceSignature: String

    public init(token: String, deviceId: String, devicePublicKey: String, deviceSignature: String) {
        self.token = token
        self.deviceId = deviceId
        self.devicePublicKey = devicePublicKey
        self.deviceSignature = deviceSignature
    }
}

public struct RedeemResponse: Codable, Sendable, Equatable {
    public var sessionId: String
    public var type: WireSessionType
    public var expiresAt: Date
    public var server: WireServer
    public var announceInfo: [String: String]
    /// The server's logo for this session, a `data:image/…;base64,` URL (`Announcement.logoProblem`).
    public var announceLogo: String?
    /// The steps the server's configuration skips (seed 001), present only when true.
    public var skipConfirmation: Bool?
    public var skipSecondFactor: Bool?
    /// Enrolment: the name the account gets and the accounts the user already has.
    public var displayName: String?
    public var existingAccounts: [String]?
    /// The user the session is for: an enrolment's new account, or the only user a login accepts.
    public var userId: String?
    /// The account the server chose for a login or transaction: the only one the phone offers.
    public var accountId: String?
    /// A transaction's text, which the phone shows and signs byte for byte.
    public var transaction: String?
    /// Single-use: every signed request uses it and every answer brings the next one.
    public var challenge: String
    /// The server key's signature over `SignedMessage.server`, so the phone can check the pinned key.
    public var serverSignature: String

    public init(
        sessionId: String, type: WireSessionType, expiresAt: Date, server: WireServer,
        announceInfo: [String: String], announceLogo: String? = nil, skipConfirmation: Bool? = nil, skipSecondFactor: Bool? = nil,
        displayName: String?, existingAccounts: [String]?,
        userId: String?, accountId: String? = nil, transaction: String? = nil, challenge: String, serverSignature: String
    ) {
        self.announceLogo = announceLogo
        self.skipConfirmation = skipConfirmation
        self.skipSecondFactor = skipSecondFactor
        self.sessionId = sessionId
        self.type = type
        self.expiresAt = expiresAt
        self.server = server
        self.announceInfo = announceInfo
        self.displayName = displayName
        self.existingAccounts = existingAccounts
        self.userId = userId
        self.accountId = accountId
        self.transaction = transaction
        self.challenge = challenge
        self.serverSignature = serverSignature
    }
}

public struct ConfirmRequest: Codable, Sendable {
    public var deviceId: String
    /// Login only: the chosen account and its key's signature over `SignedMessage.confirm`.
    public var accountId: String?
    public var signature: String?
    /// Free text the user typed when confirming, for the relying party (nextAuth's userInput).
    public var userInput: String?
    /// The device key's signature over `SignedMessage.confirm` (with an empty account for an enrolment).
    public var deviceSignature: String

    public init(deviceId: String, accountId: String?, signature: String?, userInput: String? = nil, deviceSignature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.signature = signature
        self.userInput = userInput
        self.deviceSignature = deviceSignature
    }
}

/// The user confirmed a transaction: the exact text the phone showed, signed by the account key
/// over `SignedMessage.transaction`.
public struct TransactionConfirmRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    public var transaction: String
    public var signature: String

    public init(deviceId: String, accountId: String, transaction: String, signature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.transaction = transaction
        self.signature = signature
    }
}

/// The answer to a confirmed transaction: the challenge for the second factor.
public struct TransactionConfirmResponse: Codable, Sendable, Equatable {
    public var challenge: String

    public init(challenge: String) {
        self.challenge = challenge
    }
}

public struct ConfirmResponse: Codable, Sendable, Equatable {
    /// nil when the Second Factor Server does not know the device yet (its first enrolment here).
    public var secondFactor: WireSecondFactorAccount?
    public var challenge: String

    public init(secondFactor: WireSecondFactorAccount?, challenge: String) {
        self.secondFactor = secondFactor
        self.challenge = challenge
    }
}

public struct EnrolRequest: Codable, Sendable {
    public var deviceId: String
    public var accountPublicKey: String
    /// Signature with the new account key over `SignedMessage.enrol` (proof of possession).
    public var accountSignature: String
    /// The PIN-derived public key and its signature over the same message.
    public var pinPublicKey: String
    public var pinSignature: String
    /// Device information: where the backend can push to this phone, and its name.
    public var deviceName: String?
    public var fcmToken: String?
    /// The phone's X25519 public key for the offline OTP key (docs/behaviour.md#offline-otp); without it the
    /// account has no offline OTP.
    public var otpPublicKey: String?
    /// The device key's signature over the same message: only the device itself may have its
    /// PIN checked (and a wrong one counted).
    public var deviceSignature: String
    /// A biometric key set together with a device's first PIN (seeds 000, 002), and its
    /// signature over the same message; both or neither.
    public var biometricPublicKey: String?
    public var biometricSignature: String?
    /// Free text the user gave with the new PIN, for the relying party (seed 002's `userInput`).
    public var userInput: String?

    public init(
        deviceId: String, accountPublicKey: String, accountSignature: String, pinPublicKey: String, pinSignature: String,
        deviceName: String?, fcmToken: String?, otpPublicKey: String? = nil, deviceSignature: String,
        biometricPublicKey: String? = nil, biometricSignature: String? = nil, userInput: String? = nil
    ) {
        self.userInput = userInput
        self.deviceSignature = deviceSignature
        self.biometricPublicKey = biometricPublicKey
        self.biometricSignature = biometricSignature
        self.deviceId = deviceId
        self.accountPublicKey = accountPublicKey
        self.accountSignature = accountSignature
        self.pinPublicKey = pinPublicKey
        self.pinSignature = pinSignature
        self.deviceName = deviceName
        self.fcmToken = fcmToken
        self.otpPublicKey = otpPublicKey
    }
}

/// The backend's half of the offline OTP key agreement, signed by the server key over
/// `SignedMessage.otpEnrolment` so that the phone knows it comes from the server it pins.
public struct WireOTPEnrolment: Codable, Sendable, Equatable {
    /// The account's 30-bit reference, the first half of every OTP it makes.
    public var reference: UInt32
    public var serverPublicKey: String
    public var signature: String

    public init(reference: UInt32, serverPublicKey: String, signature: String) {
        self.reference = reference
        self.serverPublicKey = serverPublicKey
        self.signature = signature
    }
}

public struct VerifyPinRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    /// All over `SignedMessage.verifySecondFactor`: the account key (possession) and exactly one second
    /// factor, the PIN key (knowledge) or the biometric key (inherence).
    public var accountSignature: String
    public var pinSignature: String?
    public var biometricSignature: String?
    /// A biometric success clears the PIN's failures, block and penalty (docs/behaviour.md#failure-counting-blocking-and-penalties) unless the
    /// phone is set to `disallowPinChangeWithBiometric`.
    public var clearPinFailures: Bool?
    /// Free text the user gave with the factor, for the relying party (seed 002's `userInput`).
    public var userInput: String?

    public init(
        deviceId: String, accountId: String, accountSignature: String, pinSignature: String? = nil,
        biometricSignature: String? = nil, clearPinFailures: Bool? = nil, userInput: String? = nil
    ) {
        self.userInput = userInput
        self.deviceId = deviceId
        self.accountId = accountId
        self.accountSignature = accountSignature
        self.pinSignature = pinSignature
        self.biometricSignature = biometricSignature
        self.clearPinFailures = clearPinFailures
    }
}

/// The answer to a PIN proof (enrolment or login).
public struct SecondFactorResponse: Codable, Sendable, Equatable {
    public enum Result: String, Codable, Sendable {
        case accepted
        case rejected
        /// Refused without looking during a penalty: the counters did not change.
        case penalised
    }

    public var result: Result
    public var secondFactor: WireSecondFactorAccount
    /// Enrolment: the new account's id at the server.
    public var accountId: String?
    /// For the next attempt after a rejection, or the next step of a management flow.
    public var challenge: String?
    /// Enrolment with an OTP key: the backend's half of it.
    public var otp: WireOTPEnrolment?

    public init(
        result: Result, secondFactor: WireSecondFactorAccount, accountId: String?, challenge: String?,
        otp: WireOTPEnrolment? = nil
    ) {
        self.result = result
        self.secondFactor = secondFactor
        self.accountId = accountId
        self.challenge = challenge
        self.otp = otp
    }
}

/// The phone ended the session's flow without success, for one of the reasons a phone can
/// have; signed by the device key over `SignedMessage.abandon`.
public struct AbandonRequest: Codable, Sendable {
    public var deviceId: String
    public var code: String
    public var deviceSignature: String

    /// What a phone may report: the user cancelled, it has no account for the session, or no
    /// second factor it holds can pass. Anything else is the server's own finding.
    public static let codes: Set<String> = ["USER_CANCELED", "NO_ACCOUNTS_FOR_SERVER", "PIN_BLOCKED", "PIN_LOCKED"]

    public init(deviceId: String, code: String, deviceSignature: String) {
        self.deviceId = deviceId
        self.code = code
        self.deviceSignature = deviceSignature
    }
}

/// HEADLESS_UPGRADE: the account's new key, signed by the old key and by itself.
public struct RotateKeyRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    public var newPublicKey: String
    /// Both over `SignedMessage.rotate`.
    public var oldKeySignature: String
    public var newKeySignature: String

    public init(deviceId: String, accountId: String, newPublicKey: String, oldKeySignature: String, newKeySignature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.newPublicKey = newPublicKey
        self.oldKeySignature = oldKeySignature
        self.newKeySignature = newKeySignature
    }
}
