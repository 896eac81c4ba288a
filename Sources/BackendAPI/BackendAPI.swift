import Foundation

// The wire between the simulated phone and the demo backend: the only types the two share.
// Keys, signatures and challenges travel as base64url text.

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
        announceInfo: [String: String], displayName: String?, existingAccounts: [String]?,
        userId: String?, accountId: String? = nil, transaction: String? = nil, challenge: String, serverSignature: String
    ) {
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

    public init(
        deviceId: String, accountPublicKey: String, accountSignature: String, pinPublicKey: String, pinSignature: String,
        deviceName: String?, fcmToken: String?, otpPublicKey: String? = nil, deviceSignature: String
    ) {
        self.deviceSignature = deviceSignature
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
    /// All over `SignedMessage.verifyPin`: the account key (possession) and exactly one second
    /// factor, the PIN key (knowledge) or the biometric key (inherence).
    public var accountSignature: String
    public var pinSignature: String?
    public var biometricSignature: String?
    /// A biometric success clears the PIN's failures, block and penalty (docs/behaviour.md#failure-counting-blocking-and-penalties) unless the
    /// phone is set to `disallowPinChangeWithBiometric`.
    public var clearPinFailures: Bool?

    public init(
        deviceId: String, accountId: String, accountSignature: String, pinSignature: String? = nil,
        biometricSignature: String? = nil, clearPinFailures: Bool? = nil
    ) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.accountSignature = accountSignature
        self.pinSignature = pinSignature
        self.biometricSignature = biometricSignature
        self.clearPinFailures = clearPinFailures
    }
}

/// A phone starting one of its own management flows for a device second factor; the account
/// key proves it is the phone.
public struct ManagementRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    public var type: WireSessionType
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.management`.
    public var signature: String

    public init(deviceId: String, accountId: String, type: WireSessionType, timestamp: Date, signature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.type = type
        self.timestamp = timestamp
        self.signature = signature
    }
}

public struct ManagementResponse: Codable, Sendable, Equatable {
    public var sessionId: String
    public var expiresAt: Date
    public var challenge: String
    public var secondFactor: WireSecondFactorAccount
    /// Whether the Second Factor Server holds a biometric key for the device.
    public var biometricsRegistered: Bool

    public init(sessionId: String, expiresAt: Date, challenge: String, secondFactor: WireSecondFactorAccount, biometricsRegistered: Bool) {
        self.sessionId = sessionId
        self.expiresAt = expiresAt
        self.challenge = challenge
        self.secondFactor = secondFactor
        self.biometricsRegistered = biometricsRegistered
    }
}

/// After a verified CHANGE_PIN or ADD_BIOMETRICS: the device's new factor key, with proof that
/// the phone holds it.
public struct SetSecondFactorRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    /// `pin` or `biometrics`.
    public var factor: String
    public var publicKey: String
    /// Over `SignedMessage.setSecondFactor`, by the account key and by the new factor key.
    public var accountSignature: String
    public var factorSignature: String

    public init(deviceId: String, accountId: String, factor: String, publicKey: String, accountSignature: String, factorSignature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.factor = factor
        self.publicKey = publicKey
        self.accountSignature = accountSignature
        self.factorSignature = factorSignature
    }
}

/// Nevis's DeviceInformationChange: a new name, a new FCM token, or no more pushes. The
/// account key proves it is the device.
public struct DeviceInformationChangeRequest: Codable, Sendable, Equatable {
    public var deviceId: String
    public var accountId: String
    public var name: String?
    public var fcmToken: String?
    /// Stop pushes to this device; a later `fcmToken` starts them again.
    public var disablePushNotifications: Bool?
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.deviceChange`.
    public var signature: String

    public init(
        deviceId: String, accountId: String, name: String?, fcmToken: String?, disablePushNotifications: Bool?,
        timestamp: Date, signature: String
    ) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.name = name
        self.fcmToken = fcmToken
        self.disablePushNotifications = disablePushNotifications
        self.timestamp = timestamp
        self.signature = signature
    }
}

/// A phone removing one of its accounts from the backend too (the SDK's "remove account").
public struct AccountRemovalRequest: Codable, Sendable, Equatable {
    public var deviceId: String
    public var accountId: String
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.removeAccount`.
    public var signature: String

    public init(deviceId: String, accountId: String, timestamp: Date, signature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.timestamp = timestamp
        self.signature = signature
    }
}

/// The device as the backend now knows it.
public struct DeviceInformation: Codable, Sendable, Equatable {
    public var deviceId: String
    public var name: String
    public var fcmToken: String?
    public var pushNotifications: Bool

    public init(deviceId: String, name: String, fcmToken: String?) {
        self.deviceId = deviceId
        self.name = name
        self.fcmToken = fcmToken
        pushNotifications = fcmToken != nil
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
    public static let codes: Set<String> = ["USER_CANCELED", "NO_ACCOUNTS_FOR_SERVER", "PIN_BLOCKED"]

    public init(deviceId: String, code: String, deviceSignature: String) {
        self.deviceId = deviceId
        self.code = code
        self.deviceSignature = deviceSignature
    }
}

/// The error body of every route.
public struct WireErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
    }

    public var error: Detail

    public init(code: String, message: String) {
        error = Detail(code: code, message: message)
    }
}

/// An FCM HTTP v1 send request, as the backend posts it to the push service.
public struct FCMSend: Codable, Sendable {
    public struct Message: Codable, Sendable {
        public struct Notification: Codable, Sendable {
            public var title: String
            public var body: String
        }
        public var token: String
        public var data: [String: String]
        public var notification: Notification
    }
    public var message: Message

    public init(token: String, data: [String: String], title: String, body: String) {
        message = Message(token: token, data: data, notification: .init(title: title, body: body))
    }

    public static func path(project: String) -> String { "/v1/projects/\(project)/messages:send" }
}

/// The exact bytes each party signs. Domain-separated so that no signature can be replayed as
/// another kind, and bound to the session and its current single-use challenge.
public enum SignedMessage {
    public static func redeem(token: String, deviceId: String, devicePublicKey: String) -> [UInt8] {
        Array("authphone/v1 redeem\n\(token)\n\(deviceId)\n\(devicePublicKey)".utf8)
    }
    public static func abandon(sessionId: String, code: String) -> [UInt8] {
        Array("authphone/v1 abandon\n\(sessionId)\n\(code)".utf8)
    }
    public static func server(sessionId: String, challenge: String) -> [UInt8] {
        Array("authphone/v1 server\n\(sessionId)\n\(challenge)".utf8)
    }
    public static func confirm(sessionId: String, challenge: String, accountId: String) -> [UInt8] {
        Array("authphone/v1 confirm\n\(sessionId)\n\(challenge)\n\(accountId)".utf8)
    }
    public static func enrol(sessionId: String, challenge: String, accountPublicKey: String) -> [UInt8] {
        Array("authphone/v1 enrol\n\(sessionId)\n\(challenge)\n\(accountPublicKey)".utf8)
    }
    /// The text's UTF-8 bytes themselves are signed, so any change to it breaks the signature.
    public static func transaction(sessionId: String, challenge: String, accountId: String, text: String) -> [UInt8] {
        Array("authphone/v1 transaction\n\(sessionId)\n\(challenge)\n\(accountId)\n".utf8) + Array(text.utf8)
    }
    public static func verifyPin(sessionId: String, challenge: String, accountId: String) -> [UInt8] {
        Array("authphone/v1 pin\n\(sessionId)\n\(challenge)\n\(accountId)".utf8)
    }
    public static func management(accountId: String, type: WireSessionType, timestamp: Date) -> [UInt8] {
        Array("authphone/v1 manage\n\(accountId)\n\(type.rawValue)\n\(Int(timestamp.timeIntervalSince1970))".utf8)
    }
    public static func setSecondFactor(sessionId: String, challenge: String, factor: String, publicKey: String) -> [UInt8] {
        Array("authphone/v1 set\n\(sessionId)\n\(challenge)\n\(factor)\n\(publicKey)".utf8)
    }
    public static func rotate(sessionId: String, challenge: String, accountId: String, newPublicKey: String) -> [UInt8] {
        Array("authphone/v1 rotate\n\(sessionId)\n\(challenge)\n\(accountId)\n\(newPublicKey)".utf8)
    }
    public static func removeAccount(accountId: String, timestamp: Date) -> [UInt8] {
        Array("authphone/v1 remove\n\(accountId)\n\(Int(timestamp.timeIntervalSince1970))".utf8)
    }
    public static func deviceChange(_ request: DeviceInformationChangeRequest) -> [UInt8] {
        let disable = request.disablePushNotifications == true ? "disable" : ""
        return Array(
            ("authphone/v1 device\n\(request.accountId)\n\(Int(request.timestamp.timeIntervalSince1970))\n"
                + "\(request.name ?? "")\n\(request.fcmToken ?? "")\n\(disable)").utf8)
    }
    /// Binds the backend's OTP key half and the reference to the enrolment and the phone's half.
    public static func otpEnrolment(
        sessionId: String, accountId: String, reference: UInt32, serverPublicKey: String,
        phonePublicKey: String
    ) -> [UInt8] {
        Array("authphone/v1 otp\n\(sessionId)\n\(accountId)\n\(reference)\n\(serverPublicKey)\n\(phonePublicKey)".utf8)
    }
    /// Bound to the time so that a captured request stops working within minutes.
    public static func pending(accountId: String, timestamp: Date) -> [UInt8] {
        Array("authphone/v1 pending\n\(accountId)\n\(Int(timestamp.timeIntervalSince1970))".utf8)
    }
}

/// The backend's routes: the templates its server matches and the paths a phone calls, both
/// relative to the backend's base URL.
public enum BackendRoutes {
    /// Where the server mounts the backend's routes.
    public static let root = "/api/backend"
    /// The name of the session's path parameter in the templates.
    public static let sessionParameter = "id"

    /// Each route's path under `root` as the server matches it; the phone's paths below are
    /// made from these, so a path is written once.
    public enum Template {
        public static let sessions = "sessions"
        public static let session = "sessions/{\(sessionParameter)}"
        public static let otpLogin = session + "/otp-login"
        public static let qrImage = session + "/qr.svg"
        public static let secondFactorPolicy = "second-factor-policy"
        public static let serverFlags = "server-flags"
        public static let redeem = "redeem"
        public static let confirm = session + "/confirm"
        public static let enrol = session + "/enrol"
        public static let verifyPin = session + "/verify"
        public static let confirmTransaction = session + "/transaction"
        public static let abandon = session + "/abandon"
        public static let setSecondFactor = session + "/second-factor"
        public static let rotate = session + "/rotate"
        public static let pending = "pending"
        public static let management = "management"
        public static let devices = "devices"
        public static let accountRemoval = "accounts/remove"
    }

    public static let redeem = path(Template.redeem)
    public static func confirm(_ session: String) -> String { path(Template.confirm, session: session) }
    public static func enrol(_ session: String) -> String { path(Template.enrol, session: session) }
    public static func verifyPin(_ session: String) -> String { path(Template.verifyPin, session: session) }
    public static func confirmTransaction(_ session: String) -> String { path(Template.confirmTransaction, session: session) }
    public static func abandon(_ session: String) -> String { path(Template.abandon, session: session) }
    public static func setSecondFactor(_ session: String) -> String { path(Template.setSecondFactor, session: session) }
    public static func rotate(_ session: String) -> String { path(Template.rotate, session: session) }
    public static func qrImage(_ session: String) -> String { path(Template.qrImage, session: session) }
    public static let pending = path(Template.pending)
    public static let management = path(Template.management)
    public static let devices = path(Template.devices)
    public static let accountRemoval = path(Template.accountRemoval)

    static func path(_ template: String, session: String? = nil) -> String {
        root + "/" + (session.map { template.replacingOccurrences(of: "{\(sessionParameter)}", with: $0) } ?? template)
    }
}

/// One JSON dialect for every party: ISO 8601 dates, sorted keys (stable output for tests and diffs).
public enum WireJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// A Swift type as JSON calls it.
    static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is [String: Any].Type: "an object"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "a value of another kind"
        }
    }

    /// Names the field and the problem instead of dumping the decoder's internals.
    public static func describe(_ error: Error) -> String {
        func path(_ codingPath: [CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "the field '\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)' is missing"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return "\(field.isEmpty ? "the body" : "the field '\(field)'") must be \(jsonKind(of: type))"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not valid JSON" : "the field '\(path(context.codingPath))' is invalid"
        default:
            return "it could not be read"
        }
    }
}

/// A phone asking for the operations waiting for one of its accounts (the pull fallback for a
/// phone without pushes, as nevisFIDO's pending out-of-band operations).
public struct PendingRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    /// The phone's clock; the backend accepts it within a few minutes of its own.
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.pending`.
    public var signature: String

    public init(deviceId: String, accountId: String, timestamp: Date, signature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.timestamp = timestamp
        self.signature = signature
    }
}

public struct PendingOperation: Codable, Sendable, Equatable {
    public var sessionId: String
    public var type: WireSessionType
    public var createdAt: Date
    public var expiresAt: Date
    /// The dispatch payload, as QR text.
    public var payload: String

    public init(sessionId: String, type: WireSessionType, createdAt: Date, expiresAt: Date, payload: String) {
        self.sessionId = sessionId
        self.type = type
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.payload = payload
    }
}

public struct PendingResponse: Codable, Sendable, Equatable {
    public var operations: [PendingOperation]

    public init(operations: [PendingOperation]) {
        self.operations = operations
    }
}

/// The answer to a request that has nothing more to say than "done".
public struct Acknowledged: Codable, Sendable, Equatable {
    public init() {}
}

/// Text a person reads and a key signs (a transaction, a user's input): bounded, and free of
/// control and invisible formatting characters (such as a right-to-left override) but line
/// breaks, so the screen shows exactly what is signed. Both phone and backend check it.
public enum ReadableText {
    public static let maximumTransactionLength = 1000
    public static let maximumUserInputLength = 500

    /// What is wrong with a name (a user id, a display or device name), or nil when it is fine:
    /// one line, and nothing that hides or reorders what is shown (a NUL that SQLite would cut
    /// the name at, a right-to-left override).
    public static func nameProblem(in name: String, limit: Int) -> String? {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > limit
            || name.unicodeScalars.contains(where: { hidden.contains($0.properties.generalCategory) })
        {
            return "must be 1 to \(limit) characters on one line, without control or invisible formatting characters"
        }
        return nil
    }

    /// What is wrong with the text, or nil when it is fine.
    public static func problem(in text: String, limit: Int) -> String? {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || text.count > limit {
            return "must be 1 to \(limit) characters"
        }
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format]
        if text.unicodeScalars.contains(where: { $0 != "\n" && hidden.contains($0.properties.generalCategory) }) {
            return "must not contain control or invisible formatting characters other than line breaks"
        }
        return nil
    }
}
