import Foundation
import SodiumKit
import StrictJSON

/// The export file (docs/state-export.md): one JSON object,
/// `{"format": "authphone-export", "version": 1, "exportedAt", "state": {…}, "sealed": {…}}`.
/// `state` is everything but the secrets, in clear so a person can read and diff it; `sealed`
/// is a `crypto_secretbox` of the secrets and of a BLAKE2b digest of `state`, under a key that
/// Argon2id makes from the passphrase with the salt and limits written beside it. The digest
/// binds the clear part to the sealed one: a changed public key or id in `state` would let whoever
/// changed it log in as someone else, so it is refused like a changed box.
public enum StateFile {
    public static let format = "authphone-export"
    public static let version = 1
    /// No state of simulated phones comes near this; a larger file is refused before it is parsed.
    public static let maximumSize = 64 << 20
    /// The most a file may make its reader spend: libsodium's MODERATE limits (3 passes, 256 MiB).
    public static let costBounds = (minimum: PassphraseBox.Cost.minimum, maximum: PassphraseBox.Cost.moderate)

    static let algorithm = "argon2id13"
    static let cipher = "xsalsa20poly1305"

    /// The file's bytes; `cost` is INTERACTIVE but for tests, which may write the minimum (the
    /// file says which, and its reader follows).
    public static func write(
        _ state: ExportedState, passphrase: GuardedBytes, cost: PassphraseBox.Cost = .interactive, at time: Date
    ) throws(StateExportError) -> Data {
        try state.validate()
        let clear = ClearState(phones: state.phones, backend: state.backend)
        do {
            // the digest the reader will make: of the state as it reads it back from these bytes
            let readBack = try decoder.decode(ClearState.self, from: try canonical.encode(clear))
            var content = try canonical.encode(SealedContent(stateDigest: Data(try digest(readBack)), secrets: state.secrets))
            defer { content.resetBytes(in: 0..<content.count) }
            let salt = try Sodium.randomBytes(PassphraseBox.saltLength)
            let key = try PassphraseBox.key(passphrase: passphrase, salt: salt, cost: cost)
            let (nonce, box) = try PassphraseBox.seal(content, key: key)
            let sealed = Sealed(
                kdf: KDF(algorithm: algorithm, opsLimit: cost.opsLimit, memLimit: cost.memLimit, salt: Data(salt)),
                cipher: cipher, nonce: Data(nonce), box: Data(box))
            return try readable.encode(File(format: format, version: version, exportedAt: time, state: clear, sealed: sealed))
        } catch let error as SodiumError {
            throw .invalid("the state could not be sealed: \(error)")
        } catch {
            throw .invalid("the state could not be written: \(error)")
        }
    }

    /// The state the file holds, checked whole before anything uses it: its shape and version,
    /// the limits it asks Argon2id for, the box, the digest of the clear part, and the parts
    /// fitting together.
    public static func read(_ data: Data, passphrase: GuardedBytes) throws(StateExportError) -> ExportedState {
        guard data.count <= maximumSize else { throw .unreadable("the file is larger than \(maximumSize >> 20) MiB") }
        do { _ = try StrictJSON.scan(data) } catch { throw .notAnExport("the file is not JSON: \(error)") }
        let header: Header
        do { header = try decoder.decode(Header.self, from: data) } catch { throw .notAnExport("the file is not a JSON object") }
        guard header.format == format else { throw .notAnExport("the file's format is not \"\(format)\"") }
        guard let found = header.version, found == version else { throw .version(header.version ?? 0) }
        let file: File
        do { file = try decoder.decode(File.self, from: data) } catch { throw .notAnExport("the export is not whole: \(describe(error))") }

        let kdf = file.sealed.kdf
        guard kdf.algorithm == algorithm, file.sealed.cipher == cipher else {
            throw .notAnExport("the export is sealed with \(kdf.algorithm) and \(file.sealed.cipher), not \(algorithm) and \(cipher)")
        }
        let (minimum, maximum) = costBounds
        guard (minimum.opsLimit...maximum.opsLimit).contains(kdf.opsLimit), (minimum.memLimit...maximum.memLimit).contains(kdf.memLimit) else {
            throw .cost(
                "the export asks Argon2id for \(kdf.opsLimit) passes and \(kdf.memLimit) bytes; this reader spends "
                    + "\(minimum.opsLimit) to \(maximum.opsLimit) passes and \(minimum.memLimit) to \(maximum.memLimit) bytes")
        }
        guard kdf.salt.count == PassphraseBox.saltLength else { throw .notAnExport("the salt is not \(PassphraseBox.saltLength) bytes") }

        let opened: SecretBytes
        do {
            let key = try PassphraseBox.key(
                passphrase: passphrase, salt: Array(kdf.salt), cost: PassphraseBox.Cost(opsLimit: kdf.opsLimit, memLimit: kdf.memLimit))
            opened = try PassphraseBox.open(Array(file.sealed.box), nonce: Array(file.sealed.nonce), key: key)
        } catch {
            throw error == .openFailed ? .cannotOpen : .invalid("the sealed part could not be opened: \(error)")
        }
        let content: SealedContent
        do {
            content = try opened.withBytes { bytes in
                try decoder.decode(
                    SealedContent.self,
                    from: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count, deallocator: .none))
            }
        } catch { throw .notAnExport("the sealed part is not the secrets of an export: \(describe(error))") }
        do {
            guard Sodium.constantTimeEquals(Array(content.stateDigest), try digest(file.state)) else { throw StateExportError.tampered }
        } catch let error as StateExportError { throw error } catch { throw .invalid("the state could not be digested: \(error)") }

        let state = ExportedState(phones: file.state.phones, backend: file.state.backend, secrets: content.secrets)
        try state.validate()
        return state
    }

    // MARK: the file's shape

    private struct Header: Decodable {
        var format: String?
        var version: Int?
    }

    private struct File: Codable {
        var format: String
        var version: Int
        var exportedAt: Date
        var state: ClearState
        var sealed: Sealed
    }

    private struct ClearState: Codable {
        var phones: [ExportedState.Phone]
        var backend: ExportedState.Backend
    }

    private struct Sealed: Codable {
        var kdf: KDF
        var cipher: String
        var nonce: Data
        var box: Data
    }

    private struct KDF: Codable {
        var algorithm: String
        var opsLimit: Int
        var memLimit: Int
        var salt: Data
    }

    /// What the box holds.
    private struct SealedContent: Codable {
        var stateDigest: Data
        var secrets: ExportedState.Secrets
    }

    // MARK: encoding

    /// ISO 8601 with milliseconds, the precision the stores keep, written and read by whole
    /// milliseconds: Foundation's own format truncates (…​.123 may come out …​.122), so a time read
    /// back would not be the time written, nor its digest the same.
    private static let secondsStyle = Date.ISO8601FormatStyle()

    static func text(of date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let fraction = (milliseconds % 1000 + 1000) % 1000  // before 1970 too
        let whole = secondsStyle.format(Date(timeIntervalSince1970: Double((milliseconds - fraction) / 1000)))
        return whole.dropLast() + String(format: ".%03dZ", Int(fraction))
    }

    static func date(from text: String) -> Date? {
        let parts = text.split(separator: ".")
        guard parts.count == 2, parts[1].count == 4, parts[1].hasSuffix("Z"), let fraction = Int(parts[1].dropLast()), fraction >= 0,
            let whole = try? secondsStyle.parse(parts[0] + "Z")
        else { return nil }
        return Date(timeIntervalSince1970: (whole.timeIntervalSince1970 * 1000 + Double(fraction)) / 1000)
    }

    private static func encoder(_ formatting: JSONEncoder.OutputFormatting) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting.union([.sortedKeys, .withoutEscapingSlashes])
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(text(of: date))
        }
        return encoder
    }

    /// What the digest is made of: the state as decoded, encoded again the one way there is.
    private static let canonical = encoder([])
    /// What a person reads and diffs.
    private static let readable = encoder(.prettyPrinted)

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = date(from: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a time such as 2026-01-31T12:00:00.000Z"))
            }
            return date
        }
        return decoder
    }()

    private static func digest(_ state: ClearState) throws -> [UInt8] {
        try Sodium.genericHash(try canonical.encode(state))
    }

    /// Where a decoding error is, in the file's own key path.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
