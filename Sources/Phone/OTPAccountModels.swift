import Foundation
import OTP

/// An otpauth:// account on the phone (TOTP or HOTP), as the API and the screen show it: what its
/// key URI said, never its secret.
public struct OTPAccount: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case totp, hotp
    }

    public var id: String
    public var kind: Kind
    /// Who issued the key; absent when the key URI named no one.
    public var issuer: String?
    /// The account the key belongs to (the key URI's label without its issuer prefix).
    public var label: String
    /// `SHA1`, `SHA256` or `SHA512`.
    public var algorithm: String
    public var digits: Int
    /// TOTP: seconds each code lasts.
    public var period: Int?
    /// HOTP: the counter whose code the account shows.
    public var counter: UInt64?
    public var createdAt: Date
}

/// An account's code as the phone shows it. Made when asked for; never stored or logged.
public struct OTPCode: Codable, Sendable, Equatable {
    public var code: String
    /// TOTP: whole seconds until the code changes.
    public var validFor: Int?
    /// TOTP: the code's period, so the screen can draw its countdown.
    public var period: Int?
    /// HOTP: the counter the code is for.
    public var counter: UInt64?
}

/// What happened to an OTP account, for the screen's list and its flow log: the account, never
/// its secret or a code.
public struct OTPAccountChange: Codable, Sendable, Equatable {
    public enum Change: String, Codable, Sendable {
        /// Scanned in from a key URI.
        case imported
        /// HOTP: the counter moved on to the next code.
        case advanced
        case deleted
    }

    public var change: Change
    public var account: OTPAccount
}

extension OTPAccountRecord {
    /// A new account's row: what the key URI said, the secret with it.
    init(id: String, phoneId: String, uri: OTPAuthURI, createdAt: Date) {
        let generator = uri.generator
        var period: Int?
        var counter: UInt64?
        switch generator.moving {
        case .time(let seconds): period = seconds
        case .counter(let value): counter = value
        }
        self.init(
            id: id, phoneId: phoneId, issuer: uri.issuer ?? "", label: uri.account, algorithm: generator.algorithm.rawValue,
            digits: generator.digits, period: period, counter: counter, secret: Data(generator.secret), createdAt: createdAt)
    }

    var account: OTPAccount {
        OTPAccount(
            id: id, kind: period == nil ? .hotp : .totp, issuer: issuer.isEmpty ? nil : issuer, label: label, algorithm: algorithm,
            digits: digits, period: period, counter: counter, createdAt: createdAt)
    }

    /// What makes the account's codes, held to the bounds a key URI is held to.
    func generator() throws(OTPAuthError) -> OTPGenerator {
        let moving: OTPGenerator.Moving
        switch (period, counter) {
        case (let period?, _): moving = .time(period: period)
        case (nil, let counter?): moving = .counter(counter)
        case (nil, nil): throw .missingCounter
        }
        return try OTPGenerator(secret: Array(secret), algorithm: HOTP.Algorithm(named: algorithm), digits: digits, moving: moving)
    }
}

extension OTPCode {
    init(_ generator: OTPGenerator, at time: Date) {
        code = generator.code(at: time)
        switch generator.moving {
        case .time(let period):
            validFor = generator.secondsLeft(at: time)
            self.period = period
        case .counter(let counter): self.counter = counter
        }
    }
}
