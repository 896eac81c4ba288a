/// Why a payload was refused: a stable `code` for scripts and a `message` that names the field
/// and the problem for people.
public struct OutOfBandError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    /// nextAuth's number (docs/behaviour.md#error-codes): a payload that does not parse is 32,
    /// one that parses but is of a content type or version the phone does not take is 33.
    public private(set) var sdkCode = 32

    static func empty(_ what: String) -> OutOfBandError {
        OutOfBandError(code: "EMPTY_PAYLOAD", message: "the \(what) is empty")
    }
    static func tooLarge(_ what: String, limit: Int) -> OutOfBandError {
        OutOfBandError(code: "PAYLOAD_TOO_LARGE", message: "the \(what) is longer than \(limit) bytes")
    }
    static func malformed(_ reason: String) -> OutOfBandError {
        OutOfBandError(code: "MALFORMED_PAYLOAD", message: reason)
    }
    static func missingField(_ field: String) -> OutOfBandError {
        OutOfBandError(code: "MISSING_FIELD", message: "the field '\(field)' is missing")
    }
    static func invalidField(_ field: String, _ reason: String) -> OutOfBandError {
        OutOfBandError(code: "INVALID_FIELD", message: "the field '\(field)' \(reason)")
    }
    static func unsupportedContentType(_ value: String) -> OutOfBandError {
        OutOfBandError(
            code: "UNSUPPORTED_CONTENT_TYPE",
            message: "nma_data_content_type '\(value)' is not supported (only \(OutOfBandPayload.supportedContentType))", sdkCode: 33)
    }
    static func unsupportedVersion(_ value: String) -> OutOfBandError {
        OutOfBandError(
            code: "UNSUPPORTED_VERSION",
            message: "nma_data_version '\(value)' is not supported (only \(OutOfBandPayload.supportedVersion))", sdkCode: 33)
    }
    static func invalidLink(_ reason: String) -> OutOfBandError {
        OutOfBandError(code: "INVALID_LINK", message: reason)
    }
}
