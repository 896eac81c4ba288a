import Foundation

/// One message the FCM endpoint received, from anyone, and what became of it: what a developer
/// testing their own backend's push code wants to see after the fact.
public struct PushLogEntry: Codable, Equatable, Sendable {
    /// The message's id (the last part of its resource name); a refused message gets one of its own.
    public var id: String
    public var receivedAt: Date
    /// The address the send came from.
    public var sender: String
    /// The token (or topic, or condition) the message named; nil when none could be read.
    public var target: String?
    public var outcome: PushOutcome
    /// `projects/…/messages/…` when accepted.
    public var name: String?
    /// FCM's refusal message, and the rule broken when FCM names one.
    public var error: String?
    public var rule: FCMRule?
    /// The redeem token of the out-of-band payload the data map held, so a page can find its session.
    public var payloadToken: String?
    /// The send request as received, its first `PushLogEntry.requestLimit` bytes.
    public var request: String
    public var truncated: Bool

    /// Bytes of a request the log keeps: a message over FCM's limit still fits whole.
    public static let requestLimit = 16 * 1024

    public init(
        id: String, receivedAt: Date, sender: String, body: [UInt8], target: String?, outcome: PushOutcome,
        name: String? = nil, failure: FCMError? = nil, payloadToken: String? = nil
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.sender = sender
        self.target = target
        self.outcome = outcome
        self.name = name
        error = failure?.message
        rule = failure?.rule
        self.payloadToken = payloadToken
        request = String(decoding: body.prefix(Self.requestLimit), as: UTF8.self)
        truncated = body.count > Self.requestLimit
    }
}

/// What became of a message: where it went, or FCM's error code when it was refused.
public enum PushOutcome: String, Codable, Equatable, Sendable, CaseIterable {
    /// Shown at once: the phone's screen was open.
    case banner
    /// Waiting in the phone's inbox.
    case inbox
    /// The phone opened it (the user tapped it, or the phone opens pushes at once).
    case opened
    /// `validate_only`: checked, not delivered.
    case validated
    /// Accepted and lost on the way by a fault on demand.
    case dropped
    /// Accepted and held back by a fault on demand; becomes banner or inbox when it arrives.
    case delayed
    case unregistered = "UNREGISTERED"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case invalidArgument = "INVALID_ARGUMENT"
    case senderIdMismatch = "SENDER_ID_MISMATCH"
    case unauthenticated = "UNAUTHENTICATED"
    /// An access token issued for another project.
    case permissionDenied = "PERMISSION_DENIED"
    case internalError = "INTERNAL"

    /// A refusal's outcome is its FCM error code.
    init(_ error: FCMError) {
        self = PushOutcome(rawValue: error.errorCode) ?? .internalError
    }
}
