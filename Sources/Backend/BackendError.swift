/// A refusal by the backend: `kind` becomes the HTTP status at the edge, `code` is stable for
/// scripts, `message` says what is wrong. A thrown BackendError has changed nothing.
public struct BackendError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case badRequest, forbidden, notFound, conflict, gone, tooManyRequests, unavailable, insufficientStorage
    }

    public let kind: Kind
    public let code: String
    public let message: String
    /// The session a refused request was for, where only the backend knows it (a redeem's token
    /// names no session): the answer says it, so the timeline files the exchange under it.
    public private(set) var sessionId: String?
    /// What failed underneath a 5xx (a store's own error), for the log only: the caller is told
    /// `message`, which gives nothing of the database away.
    public private(set) var cause: String?

    public var description: String { "\(code): \(message)" }

    /// The same refusal whatever its cause: a test compares what the caller is told.
    public static func == (one: BackendError, other: BackendError) -> Bool {
        (one.kind, one.code, one.message, one.sessionId) == (other.kind, other.code, other.message, other.sessionId)
    }

    public init(_ kind: Kind, _ code: String, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// The same refusal, with what failed underneath it for the log.
    func because(_ cause: String) -> BackendError {
        var error = self
        error.cause = cause
        return error
    }

    /// The same refusal, said to be about `session`.
    func about(session: String) -> BackendError {
        var error = self
        error.sessionId = session
        return error
    }

    static func invalid(_ field: String, _ reason: String) -> BackendError {
        BackendError(.badRequest, "INVALID_FIELD", "the field '\(field)' \(reason)")
    }
    static func sessionNotFound(_ id: String) -> BackendError {
        BackendError(.notFound, "SESSION_NOT_FOUND", "no session with id \(id)")
    }
    static func userNotEnrolled(_ userId: String, for purpose: String = "") -> BackendError {
        BackendError(.notFound, "USER_NOT_ENROLLED", "the user \(userId) has no account here\(purpose)")
    }
    static let tokenUnknown = BackendError(.notFound, "TOKEN_UNKNOWN", "the token is not known to this server")
    static let tokenAlreadyRedeemed = BackendError(.conflict, "TOKEN_ALREADY_REDEEMED", "the token was already redeemed")
    static let tokenExpired = BackendError(.gone, "TOKEN_EXPIRED", "the token has expired")
    static let enrolQRExpired = BackendError(
        .gone, "ENROL_QR_EXPIRED", "the enrolment QR code is no longer valid: it expired or was already used to enrol")
    static let sessionExpired = BackendError(.gone, "SESSION_EXPIRED", "the session has expired")
    static func wrongState(_ status: SessionStatus, expected: String) -> BackendError {
        BackendError(.conflict, "SESSION_STATE", "the session is \(status.rawValue); this step needs it \(expected)")
    }
    static let wrongDevice = BackendError(.forbidden, "WRONG_DEVICE", "the session was redeemed by another device")
    static let invalidSignature = BackendError(.forbidden, "INVALID_SIGNATURE", "the signature does not verify")
    static let deviceKeyMismatch = BackendError(
        .forbidden, "DEVICE_KEY_MISMATCH", "this device id is registered with another device key: the request is not from that device")
    static func accountNotFound(_ id: String) -> BackendError {
        BackendError(.notFound, "ACCOUNT_NOT_FOUND", "no account \(id) for this device")
    }
    static let biometricsNotRegistered = BackendError(
        .conflict, "BIOMETRICS_NOT_REGISTERED", "the Second Factor Server has no biometric key for this device")
    static let storageFull = BackendError(
        .insufficientStorage, "STORAGE_FULL", "the disk holding the backend's database is full: nothing was changed")
    static let storageFailed = BackendError(.unavailable, "DATABASE_ERROR", "the backend database failed")
    static let secondFactorUnknown = BackendError(
        .notFound, "SECOND_FACTOR_UNKNOWN", "the Second Factor Server has no PIN registered for this device")
}
