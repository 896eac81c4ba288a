import Crypto
import Foundation

/// HOTP (RFC 4226) and TOTP (RFC 6238): an HMAC over a counter, cut down by dynamic
/// truncation. The offline OTP uses the same truncation over its own message.
public enum HOTP {
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "SHA1", sha256 = "SHA256", sha512 = "SHA512"
    }

    /// The `digits`-digit code for `counter` (6 to 9 digits, zero-padded).
    public static func code(key: [UInt8], counter: UInt64, digits: Int = 6, algorithm: Algorithm = .sha1) -> String {
        precondition((6...9).contains(digits), "RFC 4226 codes have 6 to 9 digits")
        let number = truncate(mac(key: key, message: bigEndian(counter), algorithm: algorithm))
        let code = String(number % UInt32(pow(10, Double(digits))))
        return String(repeating: "0", count: digits - code.count) + code
    }

    /// RFC 4226 §5.3: 31 bits taken at the offset the last byte names.
    static func truncate(_ mac: [UInt8]) -> UInt32 {
        let offset = Int(mac[mac.count - 1] & 0x0f)
        return (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
    }

    static func mac(key: [UInt8], message: [UInt8], algorithm: Algorithm) -> [UInt8] {
        let key = SymmetricKey(data: key)
        return switch algorithm {
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }
}

public enum TOTP {
    /// The code for the time step that holds `time` (steps of `step` seconds from the epoch).
    public static func code(
        key: [UInt8], time: Date, step: Int = 30, digits: Int = 6,
        algorithm: HOTP.Algorithm = .sha1
    ) -> String {
        HOTP.code(key: key, counter: UInt64(max(0, time.timeIntervalSince1970) / Double(step)), digits: digits, algorithm: algorithm)
    }
}
