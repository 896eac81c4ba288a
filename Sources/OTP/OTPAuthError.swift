/// Why a key URI (or an OTP account's stored parameters) was refused: a stable code a script can
/// test and a message that says what to fix. Messages never repeat the secret. A struct around a
/// private code, so new cases do not break callers.
public struct OTPAuthError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case tooLong = "OTPAUTH_TOO_LONG"
        case malformed = "OTPAUTH_MALFORMED"
        case foreignScheme = "OTPAUTH_FOREIGN_SCHEME"
        case unsupportedType = "OTPAUTH_UNSUPPORTED_TYPE"
        case invalidLabel = "OTPAUTH_INVALID_LABEL"
        case repeatedParameter = "OTPAUTH_REPEATED_PARAMETER"
        case unsupportedParameter = "OTPAUTH_UNSUPPORTED_PARAMETER"
        case missingSecret = "OTPAUTH_MISSING_SECRET"
        case invalidSecret = "OTPAUTH_INVALID_SECRET"
        case secretLength = "OTPAUTH_SECRET_LENGTH"
        case unknownAlgorithm = "OTPAUTH_UNKNOWN_ALGORITHM"
        case invalidDigits = "OTPAUTH_INVALID_DIGITS"
        case invalidPeriod = "OTPAUTH_INVALID_PERIOD"
        case missingCounter = "OTPAUTH_MISSING_COUNTER"
        case invalidCounter = "OTPAUTH_INVALID_COUNTER"
    }
    private let kind: Code
    public let message: String

    /// The stable code, such as `OTPAUTH_INVALID_SECRET`.
    public var code: String { kind.rawValue }
    public var description: String { "\(code): \(message)" }

    static func tooLong(limit: Int) -> OTPAuthError { OTPAuthError(kind: .tooLong, message: "the key URI is longer than \(limit) bytes") }
    static func malformed(_ reason: String) -> OTPAuthError { OTPAuthError(kind: .malformed, message: reason) }
    static func foreignScheme(_ scheme: String) -> OTPAuthError {
        OTPAuthError(kind: .foreignScheme, message: "a key URI starts with otpauth://, not \(scheme)://")
    }
    static func unsupportedType(_ type: String) -> OTPAuthError {
        OTPAuthError(kind: .unsupportedType, message: "otpauth://\(type)/ is not a type the phone reads (totp or hotp)")
    }
    static func invalidLabel(_ reason: String) -> OTPAuthError { OTPAuthError(kind: .invalidLabel, message: reason) }
    static func repeatedParameter(_ name: String) -> OTPAuthError {
        OTPAuthError(kind: .repeatedParameter, message: "the parameter '\(name)' is given more than once")
    }
    static func unsupportedParameter(_ reason: String) -> OTPAuthError { OTPAuthError(kind: .unsupportedParameter, message: reason) }
    static let missingSecret = OTPAuthError(kind: .missingSecret, message: "the key URI has no 'secret' parameter")
    static func invalidSecret(_ reason: String) -> OTPAuthError { OTPAuthError(kind: .invalidSecret, message: reason) }
    static func secretLength(bytes: Int) -> OTPAuthError {
        let range = OTPGenerator.secretLengths
        return OTPAuthError(
            kind: .secretLength,
            message: "the secret is \(bytes * 8) bits; the phone takes \(range.lowerBound * 8) to \(range.upperBound * 8) bits")
    }
    static func unknownAlgorithm(_ name: String) -> OTPAuthError {
        OTPAuthError(kind: .unknownAlgorithm, message: "the algorithm '\(name)' is not one of SHA1, SHA256 and SHA512")
    }
    static func invalidDigits(_ value: String) -> OTPAuthError {
        OTPAuthError(kind: .invalidDigits, message: "digits must be 6 or 8, not '\(value)'")
    }
    static func invalidPeriod(_ value: String) -> OTPAuthError {
        let range = OTPGenerator.periods
        return OTPAuthError(
            kind: .invalidPeriod, message: "period must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
    }
    public static let missingCounter = OTPAuthError(kind: .missingCounter, message: "an hotp key URI needs the parameter 'counter'")
    static func invalidCounter(_ value: String) -> OTPAuthError {
        OTPAuthError(kind: .invalidCounter, message: "counter must be a whole number from 0 to \(OTPGenerator.counters.upperBound), not '\(value)'")
    }
}
