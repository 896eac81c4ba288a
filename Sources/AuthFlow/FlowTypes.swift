import Foundation

// The vocabulary of nextAuth's FlowUpdate (docs/behaviour.md#flows). The SDKs' documents spell the waiting state
// both WAIT_FOR_INPUT and WAIT_FOR_USER_INPUT, and the transaction interaction once as
// CONFIRM_TRANSCATION; AuthPhone uses WAIT_FOR_INPUT and CONFIRM_TRANSACTION throughout.

public enum FlowType: String, Codable, Sendable, CaseIterable {
    case enrol = "ENROL"
    case login = "LOGIN"
    case signTransaction = "SIGN_TRANSACTION"
    case changePin = "CHANGE_PIN"
    case addBiometrics = "ADD_BIOMETRICS"
    case removeBiometrics = "REMOVE_BIOMETRICS"
    case headlessUpgrade = "HEADLESS_UPGRADE"

    /// The phone's own second-factor management (docs/behaviour.md#flows): no relying party's session behind it.
    public var isManagement: Bool { [.changePin, .addBiometrics, .removeBiometrics].contains(self) }
}

public enum FlowState: String, Codable, Sendable {
    case processing = "PROCESSING"
    case waitForInput = "WAIT_FOR_INPUT"
    case done = "DONE"
    case error = "ERROR"

    public var isFinal: Bool { self == .done || self == .error }
}

public enum InteractionType: String, Codable, Sendable {
    case confirm = "CONFIRM"
    case confirmTransaction = "CONFIRM_TRANSACTION"
    case verifySecondFactor = "VERIFY_SECOND_FACTOR"
    case setSecondFactor = "SET_SECOND_FACTOR"
}

public enum InputType: String, Codable, Sendable {
    case confirm = "CONFIRM"
    case pin = "PIN"
    case biometrics = "BIOMETRICS"
}

public enum SecondFactorType: String, Codable, Sendable {
    case pin = "PIN"
    case biometrics = "BIOMETRICS"
}

public enum InteractionResultType: String, Codable, Sendable {
    case success = "SUCCESS"
    case pinFail = "PIN_FAIL"
    case biometricsRemoved = "BIOMETRICS_REMOVED"
}

public struct ServerSummary: Codable, Sendable, Equatable {
    public var name: String
    public var url: String

    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }
}

/// An account as the phone shows it: never its keys.
public struct AccountSummary: Codable, Sendable, Equatable {
    public var id: String
    public var userId: String
    public var displayName: String
    public var server: ServerSummary
    public var createdAt: Date

    public init(id: String, userId: String, displayName: String, server: ServerSummary, createdAt: Date) {
        self.id = id
        self.userId = userId
        self.displayName = displayName
        self.server = server
        self.createdAt = createdAt
    }
}

public struct ConfirmSessionInfo: Codable, Sendable, Equatable {
    /// LOGIN: the accounts to choose from; ENROL: the accounts already on the phone for that server.
    public var accounts: [AccountSummary]
    public var secondFactorNeeded: Bool
}

public struct SecondFactorInfo: Codable, Sendable, Equatable {
    public var allowedSecondFactorTypes: [SecondFactorType]
    public var requiredSecondFactorTypes: [SecondFactorType]
    /// The rule of docs/behaviour.md#biometrics: offer the biometric prompt (the PIN stays a way out).
    public var showBiometrics: Bool

    public init(allowed: [SecondFactorType], required: [SecondFactorType]) {
        allowedSecondFactorTypes = allowed
        requiredSecondFactorTypes = required
        showBiometrics = allowed.contains(.biometrics)
    }

    public static let pinOnly = SecondFactorInfo(allowed: [.pin], required: [.pin])
    /// Either factor verifies.
    public static let pinOrBiometrics = SecondFactorInfo(allowed: [.pin, .biometrics], required: [])
    /// An enrolment's new PIN, with a biometric set in the same input if the user wants
    /// (seeds 000 and 002; the PIN is required, docs/behaviour.md#second-factor-management).
    public static let pinWithBiometrics = SecondFactorInfo(allowed: [.pin, .biometrics], required: [.pin])
    /// A blocked PIN leaves the biometric as the only way.
    public static let biometricsOnly = SecondFactorInfo(allowed: [.biometrics], required: [.biometrics])
}

public struct Interaction: Codable, Sendable, Equatable {
    public var type: InteractionType
    public var confirmSessionInfo: ConfirmSessionInfo?
    public var secondFactorInfo: SecondFactorInfo?
    /// The input given so far (only while the flow is PROCESSING it).
    public var inputTypes: [InputType]
}

public struct InteractionResult: Codable, Sendable, Equatable {
    public var type: InteractionResultType
    public var interactionType: InteractionType
    public var inputTypes: [InputType]

    public init(type: InteractionResultType, interactionType: InteractionType, inputTypes: [InputType]) {
        self.type = type
        self.interactionType = interactionType
        self.inputTypes = inputTypes
    }
}

/// The Second Factor Server's view of the phone's PIN.
public struct SecondFactorAccount: Codable, Sendable, Equatable {
    public var isBlocked: Bool
    public var failedAttempts: Int
    public var maxAttempts: Int
    /// Seconds left before another PIN may be tried (0: none).
    public var penalisedFor: Int
    public var penalisedUntil: Date?

    public init(isBlocked: Bool, failedAttempts: Int, maxAttempts: Int, penalisedFor: Int = 0, penalisedUntil: Date? = nil) {
        self.isBlocked = isBlocked
        self.failedAttempts = failedAttempts
        self.maxAttempts = maxAttempts
        self.penalisedFor = penalisedFor
        self.penalisedUntil = penalisedUntil
    }
}

public struct ServerInfo: Codable, Sendable, Equatable {
    public var name: String
    public var url: String
    /// Ed25519 public key, base64url.
    public var publicKey: String
    public var visualHash: VisualHash?

    public init(name: String, url: String, publicKey: String, visualHash: VisualHash? = nil) {
        self.name = name
        self.url = url
        self.publicKey = publicKey
        self.visualHash = visualHash
    }
}

public struct EnrolInfo: Codable, Sendable, Equatable {
    public var displayName: String
    /// Accounts the server already has for this user.
    public var nsAccounts: [String]

    public init(displayName: String, nsAccounts: [String]) {
        self.displayName = displayName
        self.nsAccounts = nsAccounts
    }
}

public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: String
    public var type: FlowType
    public var expiresAt: Date
    public var server: ServerInfo
    public var announceInfo: [String: String]
    /// The server's logo for this session, a `data:image/…;base64,` URL.
    public var announceLogo: String?
    public var enrolInfo: EnrolInfo?
    /// The user the session is for; a login offers only that user's accounts.
    public var userId: String?
    /// The account the server chose: the only one offered, with no choice to make.
    public var preselectedAccountId: String?
    /// SIGN_TRANSACTION: the text the user confirms and the phone signs, byte for byte.
    public var transaction: String?
    /// The steps the server's configuration skips (seed 001; docs/behaviour.md#user-interaction);
    /// absent when not skipped.
    public var skipConfirmation: Bool?
    public var skipSecondFactor: Bool?

    public init(
        id: String, type: FlowType, expiresAt: Date, server: ServerInfo, announceInfo: [String: String] = [:],
        announceLogo: String? = nil, enrolInfo: EnrolInfo? = nil, userId: String? = nil, preselectedAccountId: String? = nil,
        transaction: String? = nil
    ) {
        self.id = id
        self.type = type
        self.expiresAt = expiresAt
        self.server = server
        self.announceInfo = announceInfo
        self.announceLogo = announceLogo
        self.enrolInfo = enrolInfo
        self.userId = userId
        self.preselectedAccountId = preselectedAccountId
        self.transaction = transaction
    }
}

/// Why a flow ended in ERROR. `sdkCode` is nextAuth's numeric code where one exists.
public struct FlowError: Codable, Sendable, Equatable, Error {
    public var code: String
    public var sdkCode: Int?
    public var message: String

    public init(code: String, sdkCode: Int? = nil, message: String) {
        self.code = code
        self.sdkCode = sdkCode
        self.message = message
    }

    public static let userCanceled = FlowError(code: "USER_CANCELED", message: "the user cancelled the flow")
    public static func noAccountsForServer(_ server: String) -> FlowError {
        FlowError(code: "NO_ACCOUNTS_FOR_SERVER", sdkCode: 34, message: "this phone has no account at \(server)")
    }
    public static let pinBlocked = FlowError(
        code: "PIN_BLOCKED",
        message:
            "the PIN is blocked after too many wrong attempts: the server's administrator can unblock it, or removing all accounts resets the phone")
    /// The Nevis change-PIN way of saying it: too many wrong old PINs end the change.
    public static let pinLocked = FlowError(
        code: "PIN_LOCKED",
        message:
            "the PIN is locked after too many wrong attempts: the server's administrator can unblock it, or removing all accounts resets the phone")
    public static func serverConnection(_ detail: String) -> FlowError {
        FlowError(code: "SERVER_CONNECTION_ERROR", sdkCode: 70, message: "the server could not be reached: \(detail)")
    }
}

/// One step of a flow's plan, as a diagram draws it: an interaction (or the server's work alone,
/// `PROCESSING`) and the second factors known to be asked there before the flow gets to it.
public struct PlanStep: Codable, Sendable, Equatable {
    public var interaction: String
    public var factors: [SecondFactorType]

    public static let processing = "PROCESSING"

    public init(interaction: String, factors: [SecondFactorType]) {
        self.interaction = interaction
        self.factors = factors
    }
}

/// One FlowUpdate: the whole flow as it is now.
public struct Flow: Codable, Sendable, Equatable {
    public var id: String
    public var type: FlowType
    public var state: FlowState
    /// The interactions this flow goes through, in order: the machine's own plan, so that a
    /// screen draws it rather than knowing it again.
    public var plan: [PlanStep] = []
    /// The plan's variant when it is not its type's usual one ("Nevis style", …).
    public var planVariant: String?
    public var currentInteraction: Interaction?
    public var previousInteractionResult: InteractionResult?
    public var secondFactorAccount: SecondFactorAccount?
    public var session: SessionInfo?
    public var transaction: String?
    public var error: FlowError?
    /// Set on the updates that follow an answer an auto-answer rule gave instead of a person.
    public var automatic: AutomaticAnswer?
}

/// Which auto-answer rule answered (docs/scripting.md#auto-answer-rules).
public struct AutomaticAnswer: Codable, Sendable, Equatable {
    public var rule: String

    public init(rule: String) { self.rule = rule }
}
