/// Why a libsodium call failed. A struct around a private code so new cases do not break callers.
public struct SodiumError: Error, Equatable, CustomStringConvertible, Sendable {
    private enum Code: Equatable, Sendable {
        case initialisationFailed
        case outOfMemory
        case invalidKeyLength(expected: Int, got: Int)
        case invalidSaltLength(expected: Int, got: Int)
        case keyDerivationFailed
        case invalidParameters(String)
        case openFailed
    }
    private let code: Code

    public static let initialisationFailed = SodiumError(code: .initialisationFailed)
    public static let outOfMemory = SodiumError(code: .outOfMemory)
    public static let keyDerivationFailed = SodiumError(code: .keyDerivationFailed)
    /// A sealed box whose key is wrong or whose bytes were changed: libsodium cannot tell which.
    public static let openFailed = SodiumError(code: .openFailed)
    public static func invalidKeyLength(expected: Int, got: Int) -> SodiumError {
        SodiumError(code: .invalidKeyLength(expected: expected, got: got))
    }
    public static func invalidSaltLength(expected: Int, got: Int) -> SodiumError {
        SodiumError(code: .invalidSaltLength(expected: expected, got: got))
    }
    public static func invalidParameters(_ reason: String) -> SodiumError {
        SodiumError(code: .invalidParameters(reason))
    }

    public var description: String {
        switch code {
        case .initialisationFailed: "libsodium could not be initialised"
        case .outOfMemory: "libsodium could not allocate guarded memory"
        case .invalidKeyLength(let expected, let got): "key must be \(expected) bytes, got \(got)"
        case .invalidSaltLength(let expected, let got): "salt must be \(expected) bytes, got \(got)"
        case .keyDerivationFailed: "Argon2id key derivation failed (not enough memory for the chosen limits?)"
        case .invalidParameters(let reason): "invalid parameters: \(reason)"
        case .openFailed: "the sealed box does not open: the key is wrong or its bytes were changed"
        }
    }
}
