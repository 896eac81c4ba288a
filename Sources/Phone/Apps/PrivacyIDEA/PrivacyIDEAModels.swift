import AuthFlow
import Foundation
import PrivacyIDEA
import SodiumKit

/// A privacyIDEA push token as the phone shows it: never its key.
public struct PushTokenSummary: Codable, Sendable, Equatable {
    public var serial: String
    public var label: String
    public var issuer: String
    public var url: String
    public var origin: String
    public var pollOnly: Bool
    public var sslVerify: Bool
    public var createdAt: Date
    /// privacyIDEA's token type: `push`, or `tiqr` for a tiqr identity (its `url` where it answers).
    public var tokenType: String

    init(_ record: PushTokenRecord) {
        tokenType = "push"
        serial = record.serial
        label = record.label
        issuer = record.issuer
        url = record.url
        origin = record.origin
        pollOnly = record.pollOnly
        sslVerify = record.sslVerify
        createdAt = record.createdAt
    }

    init(_ identity: TiqrIdentityRecord) {
        tokenType = "tiqr"
        serial = identity.listedSerial
        label = identity.shownName
        issuer = identity.serviceName
        url = identity.authenticationURL
        origin = identity.origin
        pollOnly = false
        sslVerify = true
        createdAt = identity.enrolledAt
    }
}

/// What unlocks the phone to accept a privacyIDEA login, as privacyIDEA's app asks the phone's own
/// lock: the PIN (checked on the phone) or the simulated biometric sensor.
public enum UnlockFactor: String, Codable, Sendable {
    case pin = "PIN"
    case biometric = "BIOMETRIC"
}

extension UnlockFactor {
    /// The one factor `app_force_unlock` allows; nil for `any`.
    init?(forced: PushEnrolment.ForcedUnlock) {
        switch forced {
        case .any: return nil
        case .pin: self = .pin
        case .biometric: self = .biometric
        }
    }
}

/// The user's unlock with an accept.
public enum Unlock: Sendable {
    case pin(GuardedBytes)
    /// What the simulated sensor read.
    case biometric(recognised: Bool)

    var factor: UnlockFactor {
        switch self {
        case .pin: .pin
        case .biometric: .biometric
        }
    }
}

/// What privacyIDEA asked of the phone and where it stands, as the screen shows it: the
/// enrolment of a push token (accept the server, then register) or a login challenge (accept or
/// decline, with a presence option where privacyIDEA asks for one). Published like a flow update.
public struct PrivacyIDEARequest: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case enrolment = "ENROLMENT"
        case challenge = "CHALLENGE"
        /// A smartphone container's registration (docs/privacyidea.md#containers).
        case container = "CONTAINER"
        /// A tiqr identity's enrolment (docs/privacyidea.md#tiqr).
        case tiqrEnrolment = "TIQR_ENROLMENT"
    }

    public enum Outcome: String, Codable, Sendable {
        case enrolled = "ENROLLED"
        case accepted = "ACCEPTED"
        case declined = "DECLINED"
        case cancelled = "CANCELLED"
    }

    public var kind: Kind
    /// WAIT_FOR_INPUT, PROCESSING, DONE or ERROR, as a flow's.
    public var state: FlowState
    public var serial: String
    public var label: String
    public var issuer: String
    /// The privacyIDEA server (`scheme://host:port`) the phone talks to.
    public var origin: String
    /// An enrolment's kind of server, as its code tells: `privacyIDEA` or `eduMFA`; `tiqr` for
    /// a tiqr enrolment or login.
    public var server: String?
    /// A challenge's title and question, as privacyIDEA sent them.
    public var title: String?
    public var question: String?
    public var presenceOptions: [String]?
    /// A container's registration that needs a passphrase: the prompt privacyIDEA wrote.
    public var passphrasePrompt: String?
    /// The reasons the user may give for declining, where privacyIDEA takes one.
    public var declineReasons: [DeclineReason]?
    /// A challenge whose accept must unlock the phone first (privacyIDEA's `push_force_app_pin`,
    /// or the phone's `unlockPushTokens`): what the phone can unlock with; empty when it has
    /// neither a PIN nor a biometric, and then it cannot accept.
    public var unlockWith: [UnlockFactor]?
    /// The challenge's nonce: the answer names it.
    public var nonce: String?
    public var outcome: Outcome?
    /// The reason given with a decline.
    public var declineReason: DeclineReason?
    /// An accepted challenge of privacyIDEA's `push_code_to_phone`: the code the user types into
    /// the login page, and privacyIDEA's words to show above it.
    public var displayCode: String?
    public var displayMessage: String?
    public var error: FlowError?
    /// A registration's attempts under the retry policy: the one last made, of how many, and
    /// the wait before the next (nil: none follows).
    public var attempt: Int?
    public var maxAttempts: Int?
    public var nextAttemptIn: Double?
    /// With `nextAttemptIn`, why the last attempt failed, in words.
    public var attemptFailure: String?
    /// The phone's other open challenges, newest first, each as it would be on screen: an answer
    /// names the one it is for by its nonce.
    public var waiting: [PrivacyIDEARequest]?
}
