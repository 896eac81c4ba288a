import Foundation
import SodiumKit

/// Where an export's passphrase comes from: `--passphrase-file FILE` or else the environment
/// variable `AUTHPHONE_EXPORT_PASSPHRASE`, never the command line, which every user of the
/// machine can read in the process list. It goes straight into guarded memory.
public enum Passphrase {
    public static let variable = "AUTHPHONE_EXPORT_PASSPHRASE"
    /// Shorter is guessed too soon, even at Argon2id's cost; longer is not a passphrase.
    public static let lengths = 8...1024

    /// The file's first line (its line break dropped, so `echo secret > file` works), or the variable.
    public static func read(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StateExportError)
        -> GuardedBytes
    {
        var bytes: [UInt8]
        if let file {
            // read no more than a passphrase can be, whatever the file is (/dev/zero)
            guard let data = filePrefix(file, upTo: lengths.upperBound + 2) else {
                throw .passphraseInvalid("cannot read the passphrase file \(file)")
            }
            bytes = Array(data.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") })
        } else if let value = environment[variable] {
            bytes = Array(value.utf8)
        } else {
            throw .passphraseMissing
        }
        defer { bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        guard lengths.contains(bytes.count) else {
            throw .passphraseInvalid("the passphrase must be \(lengths.lowerBound) to \(lengths.upperBound) bytes")
        }
        do { return try GuardedBytes(copying: bytes) } catch { throw .passphraseInvalid("the passphrase could not be kept: \(error)") }
    }
}
