import AuthFlow
import Foundation

/// A privacyIDEA smartphone container as the phone shows it: never its key.
public struct ContainerSummary: Codable, Sendable, Equatable {
    /// A token the container holds: a push token, or the OTP account a key URI made.
    public struct Token: Codable, Sendable, Equatable {
        public var serial: String
        public var type: String
        public var otpAccountId: String?
    }

    public var serial: String
    public var issuer: String
    public var url: String
    public var origin: String
    public var sslVerify: Bool
    public var registeredAt: Date
    public var syncedAt: Date?
    public var tokens: [Token]

    init(_ record: ContainerRecord, tokens: [ContainerTokenRecord]) {
        serial = record.serial
        issuer = record.issuer
        url = record.serverURL
        origin = record.origin
        sslVerify = record.sslVerify
        registeredAt = record.registeredAt
        syncedAt = record.syncedAt
        self.tokens = tokens.filter { $0.container == record.serial }.map {
            Token(serial: $0.serial, type: $0.tokentype, otpAccountId: $0.otpAccountId)
        }
    }
}

/// What a synchronisation did: the tokens added, kept and removed by serial, and those privacyIDEA
/// added that the phone could not take, with why.
public struct ContainerSynchronized: Codable, Sendable, Equatable {
    public struct Failure: Codable, Sendable, Equatable {
        public var serial: String?
        public var error: FlowError
    }

    public var container: ContainerSummary
    public var added: [String] = []
    public var kept: [String]
    public var removed: [String] = []
    public var failed: [Failure] = []
}

/// A rollover's new registration code, for the phone the container moves to.
public struct ContainerRollover: Codable, Sendable, Equatable {
    public var serial: String
    /// The `pia://container/…` code the other phone scans.
    public var code: String
}
