import Foundation

/// The offline one-time password (docs/behaviour.md#offline-otp): 12 Crockford base32 characters, shown as
/// `XXXXXX XXXXXX`. The first 6 (30 bits) name the account, the last 6 (30 bits) are the OTP:
/// HMAC-SHA256 under the account's key (agreed at enrolment) over the session data of the
/// login QR code, the account reference and the 2-minute time step, cut to 30 bits by RFC
/// 4226's dynamic truncation. docs/otp.md gives the exact bytes and test vectors.
public struct OfflineOTP: Equatable, Sendable, CustomStringConvertible {
    /// Seconds per time step; the server accepts the current and the previous step.
    public static let stepLength: TimeInterval = 120
    public static let referenceCount: UInt32 = 1 << 30
    static let valueMask: UInt32 = (1 << 30) - 1
    static let domain = Array("AuthPhone offline OTP v1".utf8) + [0]
    /// Longer input is refused before it is read.
    public static let maximumInputLength = 64

    public let reference: UInt32
    public let value: UInt32

    public init(reference: UInt32, value: UInt32) {
        precondition(reference < Self.referenceCount && value <= Self.valueMask, "30 bits each")
        self.reference = reference
        self.value = value
    }

    /// `2XPP7Q R5BDD0`: the account half, a space, the OTP half.
    public var description: String {
        Crockford32.encode(UInt64(reference), length: 6) + " " + Crockford32.encode(UInt64(value), length: 6)
    }

    /// The 2-minute step that holds `time`.
    public static func step(at time: Date) -> Int64 {
        Int64((time.timeIntervalSince1970 / stepLength).rounded(.down))
    }

    /// The OTP half for one step; computed only when the user asks (the phone) or to check (the server).
    public static func value(key: [UInt8], sessionData: String, reference: UInt32, step: Int64) -> UInt32 {
        let session = Array(sessionData.utf8)
        let message = domain + HOTP.bigEndian(UInt32(session.count)) + session + HOTP.bigEndian(reference) + HOTP.bigEndian(step)
        return HOTP.truncate(HOTP.mac(key: key, message: message, algorithm: .sha256)) & valueMask
    }

    public static func generate(key: [UInt8], sessionData: String, reference: UInt32, at time: Date) -> OfflineOTP {
        OfflineOTP(reference: reference, value: value(key: key, sessionData: sessionData, reference: reference, step: step(at: time)))
    }

    /// Reads a typed OTP: lenient as Crockford says, strict about length and alphabet.
    public init(parsing text: String) throws(OfflineOTPError) {
        guard text.utf8.count <= Self.maximumInputLength else {
            throw OfflineOTPError("the OTP is longer than \(Self.maximumInputLength) characters")
        }
        let whole: UInt64
        do { whole = try Crockford32.decode(text, length: 12) } catch { throw OfflineOTPError("the OTP is not valid: \(error)") }
        self.init(reference: UInt32(whole >> 30), value: UInt32(whole & UInt64(Self.valueMask)))
    }
}

/// A typed OTP that cannot be read; the message says what is wrong.
public struct OfflineOTPError: Error, Equatable, Sendable {
    public let code = "INVALID_OTP_FORMAT"
    public let message: String

    init(_ message: String) { self.message = message }
}
