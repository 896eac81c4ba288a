import Foundation

/// What makes an OTP account's codes: its key, the HMAC's hash, the code's length, and what moves
/// the code on: the clock (TOTP, RFC 6238) or a counter (HOTP, RFC 4226). Made only within the
/// bounds below, from a key URI or from a stored account alike. Its descriptions leave the key out,
/// so a generator that reaches a log or a test's failure message does not carry it there.
public struct OTPGenerator: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Moving: Equatable, Sendable {
        /// TOTP: a new code every `period` seconds counted from the Unix epoch.
        case time(period: Int)
        /// HOTP: the counter's code; the counter moves only when the user asks for the next code.
        case counter(UInt64)
    }

    /// 80 to 1024 bits. RFC 4226 asks for 128 at least, but Google Authenticator's own keys and
    /// those of many issuers are 80 bits: refusing them would refuse real accounts. No issuer
    /// hands out more than 512 (SHA512's block); twice that is room enough.
    public static let secretLengths = 10...128
    /// The lengths the key URI format allows.
    public static let digitCounts: Set<Int> = [6, 8]
    /// 10 s to an hour: a shorter code could hardly be typed before it changes, and no issuer
    /// uses a longer one.
    public static let periods = 10...3600
    /// What SQLite's signed 64-bit integers hold, where the phone keeps the counter.
    public static let counters: ClosedRange<UInt64> = 0...UInt64(Int64.max)
    public static let defaultDigits = 6
    public static let defaultPeriod = 30

    public let secret: [UInt8]
    public let algorithm: HOTP.Algorithm
    public let digits: Int
    public let moving: Moving

    public init(secret: [UInt8], algorithm: HOTP.Algorithm, digits: Int, moving: Moving) throws(OTPAuthError) {
        guard Self.secretLengths.contains(secret.count) else { throw .secretLength(bytes: secret.count) }
        guard Self.digitCounts.contains(digits) else { throw .invalidDigits(String(digits)) }
        switch moving {
        case .time(let period): guard Self.periods.contains(period) else { throw .invalidPeriod(String(period)) }
        case .counter(let counter): guard Self.counters.contains(counter) else { throw .invalidCounter(String(counter)) }
        }
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.moving = moving
    }

    /// The code at `time` (TOTP), or the counter's (HOTP, whatever the time).
    public func code(at time: Date) -> String {
        switch moving {
        case .time(let period): TOTP.code(key: secret, time: time, step: period, digits: digits, algorithm: algorithm)
        case .counter(let counter): HOTP.code(key: secret, counter: counter, digits: digits, algorithm: algorithm)
        }
    }

    /// TOTP: whole seconds until the code at `time` changes (1 to the period); nil for HOTP.
    public func secondsLeft(at time: Date) -> Int? {
        guard case .time(let period) = moving else { return nil }
        let elapsed = Int64(max(0, time.timeIntervalSince1970).rounded(.down)) % Int64(period)
        return period - Int(elapsed)
    }

    public var description: String {
        let moves =
            switch moving {
            case .time(let period): "totp, period \(period)"
            case .counter(let counter): "hotp, counter \(counter)"
            }
        return "OTPGenerator(\(moves), \(algorithm.rawValue), \(digits) digits, a \(secret.count * 8)-bit secret)"
    }
    public var debugDescription: String { description }
}

extension HOTP.Algorithm {
    /// The algorithm a key URI or a stored account names, in any case.
    public init(named name: String) throws(OTPAuthError) {
        guard let algorithm = Self(rawValue: name.uppercased()) else { throw .unknownAlgorithm(name) }
        self = algorithm
    }
}
