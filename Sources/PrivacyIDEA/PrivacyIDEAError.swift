/// Why something from or for a privacyIDEA server was refused: a stable `code` for scripts and a
/// `message` that says what is wrong for people. Never carries a key or a signature.
public struct PrivacyIDEAError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    static func enrolment(_ reason: String) -> Self { Self(code: "INVALID_PUSH_ENROLMENT", message: reason) }
    static func challenge(_ reason: String) -> Self { Self(code: "INVALID_PUSH_CHALLENGE", message: reason) }
    static func forged(_ reason: String) -> Self { Self(code: "PUSH_CHALLENGE_FORGED", message: reason) }
    static func answer(_ reason: String) -> Self { Self(code: "PRIVACYIDEA_ANSWER", message: reason) }
    static func key(_ reason: String) -> Self { Self(code: "PUSH_TOKEN_KEY", message: reason) }
    static func container(_ reason: String) -> Self { Self(code: "INVALID_CONTAINER_CODE", message: reason) }
    static func sync(_ reason: String) -> Self { Self(code: syncRefused, message: reason) }
    /// A container synchronisation's answer the phone cannot open, or one for another container.
    public static let syncRefused = "CONTAINER_SYNC_REFUSED"
}
