import AuthFlow
import Identifiers
import Retry

/// A refusal by the simulated phone: a stable code, a message, and what kind of failure it is
/// (for the HTTP status at the edge). A thrown PhoneError has changed nothing.
public struct PhoneError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case badRequest, forbidden, notFound, conflict, gone, badGateway, unavailable, insufficientStorage
    }

    public let kind: Kind
    public let code: String
    public let message: String
    /// nextAuth's numeric code, where the failure has one (52 server not allowed, 70 connection…).
    public let sdkCode: Int?
    /// The backend's HTTP status and `Retry-After`, when it answered with a refusal.
    public var httpStatus: UInt?
    public var retryAfter: Duration?
    /// A retried operation's attempts, each with its outcome.
    public var attempts: [OperationProgress.Attempt]?

    /// Only what can succeed later is worth another try: no answer at all, or a status in `HTTPRetry.statuses`.
    public var isRetryable: Bool {
        code == "SERVER_CONNECTION_ERROR" || code == "SERVER_TIMEOUT" || httpStatus.map { HTTPRetry.statuses.contains(Int($0)) } ?? false
    }

    /// The refusal is of what was sent, not for want of a part that may come back (a backend, the storage).
    public var refusesTheMessage: Bool {
        switch kind {
        case .badRequest, .forbidden, .notFound, .conflict, .gone: true
        case .badGateway, .unavailable, .insufficientStorage: false
        }
    }

    public var description: String { "\(code): \(message)" }

    public init(_ kind: Kind, _ code: String, _ message: String, sdkCode: Int? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.sdkCode = sdkCode
    }

    /// The same failure as it ends a flow.
    public var flowError: FlowError { FlowError(code: code, sdkCode: sdkCode, message: message) }

    static func phoneNotFound(_ id: String) -> PhoneError { PhoneError(.notFound, "PHONE_NOT_FOUND", "no phone with id \(id)") }
    static func invalid(_ field: String, _ reason: String) -> PhoneError {
        PhoneError(.badRequest, "INVALID_FIELD", "the field '\(field)' \(reason)")
    }
    static let flowActive = PhoneError(
        .conflict, "FLOW_ACTIVE", "this phone already has an active flow; finish or cancel it first")
    static let noActiveFlow = PhoneError(.conflict, "NO_ACTIVE_FLOW", "this phone has no active flow")
    static func serverNotAllowed(_ origin: String) -> PhoneError {
        PhoneError(.forbidden, "SERVER_NOT_ALLOWED", "the server \(origin) is not on this phone's allow-list", sdkCode: 52)
    }
    /// No answer from the server at all (error 70): what the live client throws, and a backend double too.
    public static func serverConnection(_ detail: String) -> PhoneError {
        PhoneError(.badGateway, "SERVER_CONNECTION_ERROR", "the server could not be reached: \(detail)", sdkCode: 70)
    }
    static func serverTimeout(_ detail: String) -> PhoneError {
        PhoneError(.badGateway, "SERVER_TIMEOUT", "the server did not answer in time: \(detail)", sdkCode: 50)
    }
    static func serverAuthentication(_ detail: String) -> PhoneError {
        PhoneError(.badGateway, "SERVER_AUTHENTICATION_FAILED", "the server could not be authenticated: \(detail)", sdkCode: 48)
    }
    static func serverResponse(_ detail: String) -> PhoneError {
        PhoneError(.badGateway, "SERVER_ERROR", "the server answered something unexpected: \(detail)", sdkCode: 49)
    }
    /// The session's server parameters (its name, URL and key) cannot be read.
    static func serverParameters(_ detail: String) -> PhoneError {
        PhoneError(.badGateway, "SERVER_PARAMETERS_PARSE_ERROR", "the server's parameters cannot be read: \(detail)", sdkCode: 67)
    }
    static func numberTaken(_ number: PhoneNumber) -> PhoneError {
        PhoneError(.conflict, "NUMBER_TAKEN", "another phone has the number \(number) already")
    }
    static let noFreeNumber = PhoneError(.conflict, "NO_FREE_NUMBER", "no free number was found in +44 7700 9xxxxx: give the phone one")
    static func biometricsUnavailable(_ why: String) -> PhoneError { PhoneError(.conflict, "BIOMETRICS_UNAVAILABLE", why) }
    static func crypto(_ detail: String) -> PhoneError { PhoneError(.unavailable, "CRYPTO_ERROR", detail) }
    /// Without SQLite's words: they name statements and tables, which are no business of the caller's.
    static let storageFailed = PhoneError(.unavailable, "STORAGE_ERROR", "the phone's storage failed")
    /// Too many PINs are being checked (or keys made) at once: the PIN was not used, nothing was made.
    static func busy(retryAfter: Duration, doing what: String = "PINs are being checked", retry: String = "enter it again") -> PhoneError {
        var error = PhoneError(.unavailable, "PHONE_BUSY", "too many \(what) at once: \(retry) in \(retryAfter.components.seconds) s")
        error.retryAfter = retryAfter
        return error
    }
    static let storageFull = PhoneError(
        .insufficientStorage, "STORAGE_FULL", "the disk holding the phone's storage is full: nothing was changed")
}
