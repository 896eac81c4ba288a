/// Why an export could not be written or read, or a state not loaded: a stable code a script
/// can test and a message a person can act on. A thrown StateExportError changed nothing.
/// A struct around a private code, so new cases do not break callers.
public struct StateExportError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case passphraseMissing = "EXPORT_PASSPHRASE_MISSING"
        case passphraseInvalid = "EXPORT_PASSPHRASE_INVALID"
        case unreadable = "EXPORT_UNREADABLE"
        case notAnExport = "EXPORT_NOT_AN_EXPORT"
        case version = "EXPORT_VERSION_UNSUPPORTED"
        case cost = "EXPORT_KDF_LIMITS"
        case cannotOpen = "EXPORT_CANNOT_OPEN"
        case tampered = "EXPORT_TAMPERED"
        case invalid = "EXPORT_INVALID"
        case notEmpty = "EXPORT_TARGET_NOT_EMPTY"
        case storage = "EXPORT_STORAGE_FAILED"
    }
    private let kind: Code
    public let message: String

    /// The stable code, such as `EXPORT_CANNOT_OPEN`.
    public var code: String { kind.rawValue }
    public var description: String { "\(code): \(message)" }

    /// Neither `--passphrase-file` nor `AUTHPHONE_EXPORT_PASSPHRASE`: a passphrase on the command
    /// line would show in the process list, so there is no such flag.
    public static let passphraseMissing = StateExportError(
        kind: .passphraseMissing,
        message: "no passphrase: give --passphrase-file FILE or set AUTHPHONE_EXPORT_PASSPHRASE (never on the command line)")
    public static func passphraseInvalid(_ reason: String) -> StateExportError { StateExportError(kind: .passphraseInvalid, message: reason) }
    /// The file cannot be read at all, or is too large to be one.
    public static func unreadable(_ reason: String) -> StateExportError { StateExportError(kind: .unreadable, message: reason) }
    /// Not JSON, truncated, or JSON of another shape.
    public static func notAnExport(_ reason: String) -> StateExportError { StateExportError(kind: .notAnExport, message: reason) }
    public static func version(_ found: Int) -> StateExportError {
        StateExportError(kind: .version, message: "the export's version \(found) is not one this AuthPhone reads (\(StateFile.version))")
    }
    /// Argon2id limits outside what a reader spends: a file cannot make it allocate what it likes.
    public static func cost(_ reason: String) -> StateExportError { StateExportError(kind: .cost, message: reason) }
    /// libsodium cannot tell a wrong passphrase from a changed sealed part.
    public static let cannotOpen = StateExportError(
        kind: .cannotOpen, message: "the sealed part does not open: the passphrase is wrong or the sealed part was changed")
    public static let tampered = StateExportError(
        kind: .tampered, message: "the clear part of the export was changed after it was sealed")
    /// The state's parts do not fit together (ids twice, secrets missing, a key of the wrong length).
    public static func invalid(_ reason: String) -> StateExportError { StateExportError(kind: .invalid, message: reason) }
    public static func notEmpty(_ what: String) -> StateExportError {
        StateExportError(
            kind: .notEmpty, message: "the data folder already holds \(what): import --replace erases them first, or reset the folder")
    }
    public static func storage(_ reason: String) -> StateExportError { StateExportError(kind: .storage, message: reason) }
}
