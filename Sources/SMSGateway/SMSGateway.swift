import Faults
import Foundation
import Identifiers
import SodiumKit

/// A stand-in for an SMS gateway, as Mailpit is one for a mail server (docs/sms.md): senders hand
/// it texts through a generic HTTP door or Twilio's Messages API, with the credentials it issued;
/// it delivers each to the phone that has the number, and logs every text with what became of it.
public final class SMSGateway: Sendable {
    public struct Configuration: Sendable {
        /// SMS-pumping guard: at most this many texts to one number in `rateWindow`.
        public var rateLimit: Int
        public var rateWindow: TimeInterval
        /// The SMS log keeps this many newest texts.
        public var logLimit: Int

        public init(rateLimit: Int = 30, rateWindow: TimeInterval = 60, logLimit: Int = 1000) {
            self.rateLimit = rateLimit
            self.rateWindow = rateWindow
            self.logLimit = logLimit
        }
    }

    /// Where texts go: the phones (their Messages app).
    public struct Phones: Sendable {
        /// The phone that has the number, if any.
        public var find: @Sendable (PhoneNumber) async throws -> String?
        /// Hands the text, under its id, to that phone; nil when no phone has the number (any more).
        public var deliver: @Sendable (_ id: String, OutgoingText) async throws -> String?

        public init(
            find: @escaping @Sendable (PhoneNumber) async throws -> String?,
            deliver: @escaping @Sendable (_ id: String, OutgoingText) async throws -> String?
        ) {
            self.find = find
            self.deliver = deliver
        }
    }

    let store: SMSStore
    let configuration: Configuration
    let phones: Phones
    let now: @Sendable () -> Date
    let faults: FaultInjector?
    let sleep: @Sendable (Duration) async throws -> Void

    public init(
        store: SMSStore, phones: Phones, configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = Date.init,
        faults: FaultInjector? = nil, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.store = store
        self.phones = phones
        self.configuration = configuration
        self.now = now
        self.faults = faults
        self.sleep = sleep
    }

    // MARK: credentials

    /// The account senders authenticate with, made on the first ask and kept (a reset keeps it).
    public func account() async throws -> SMSAccount {
        if let kept = try await store.account() { return kept }
        return try await store.keep(SMSAccount(sid: "AC" + Self.hex(16), authToken: Self.hex(16), createdAt: now()))
    }

    /// The account a request's HTTP basic credentials (`Authorization: Basic base64(SID:token)`)
    /// prove, compared in constant time; refused otherwise.
    func authenticate(_ authorization: String?) async throws(SMSError) -> SMSAccount {
        guard let authorization, let space = authorization.firstIndex(of: " "), authorization[..<space].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(authorization[space...].drop { $0 == " " })).flatMap({ String(data: $0, encoding: .utf8) }),
            let colon = decoded.firstIndex(of: ":")
        else { throw .unauthenticated }
        let account: SMSAccount
        do { account = try await self.account() } catch { throw .storageFailed }
        let sidMatches = Sodium.constantTimeEquals(Array(decoded[..<colon].utf8), Array(account.sid.utf8))
        let tokenMatches = Sodium.constantTimeEquals(Array(decoded[decoded.index(after: colon)...].utf8), Array(account.authToken.utf8))
        guard sidMatches, tokenMatches else { throw .unauthenticated }
        return account
    }

    /// The account the credentials prove, which must be the one the path names, if it names one.
    private func authenticated(_ credentials: Credentials) async throws(SMSError) -> SMSAccount {
        let account = try await authenticate(credentials.authorization)
        if let named = credentials.account, named != account.sid { throw .otherAccount(named) }
        return account
    }

    // MARK: texts

    /// What a door read of a request: the text, or why it cannot be one, and the parts as sent
    /// (for the log).
    public struct Handed: Sendable {
        public var text: Result<OutgoingText, SMSError>
        public var to: String?
        public var from: String?
        public var body: String?

        public init(text: Result<OutgoingText, SMSError>, to: String?, from: String?, body: String?) {
            self.text = text
            self.to = to
            self.from = from
            self.body = body
        }
    }

    /// Who a request says it is: its `Authorization` header, and the account its path names
    /// (Twilio's door names one; nil: any).
    public struct Credentials: Sendable {
        public var authorization: String?
        public var account: String?

        public init(authorization: String?, account: String? = nil) {
            self.authorization = authorization
            self.account = account
        }
    }

    /// Takes a text a sender handed a door: checks its credentials and the text, counts it
    /// against the number's window, delivers it (or drops or holds it back, when a fault says so)
    /// and logs it, refused or not; answers the log entry and the account it came through.
    public func send(
        _ handed: Handed, credentials: Credentials, door: SMSLogEntry.Door, sender: String
    ) async throws(SMSError) -> (entry: SMSLogEntry, account: SMSAccount) {
        let id = "SM" + Self.hex(16)
        var entry = SMSLogEntry(
            id: id, receivedAt: now(), door: door, sender: sender, to: handed.to, from: handed.from, text: handed.body, outcome: .refused)
        let account: SMSAccount
        do throws(SMSError) {
            account = try await authenticated(credentials)
            let text = try await admit(handed)
            entry.to = text.to.e164
            entry.from = text.from
            switch faults?.strike([.sms], requests: false) {
            case .drop:
                entry.outcome = .dropped
            case .delay(let seconds):
                entry.outcome = .delayed
                Task { [self] in
                    try await sleep(.seconds(seconds))
                    let phoneId = try? await phones.deliver(id, text)
                    try? await store.settle(id: id, phoneId == nil ? .undelivered : .delivered, phoneId: phoneId)
                }
            default:
                guard let phoneId = try await deliver(id, text) else { throw SMSError.recipientUnknown(text.to.e164) }
                entry.outcome = .delivered
                entry.phoneId = phoneId
            }
        } catch {
            entry.outcome = error.twilioCode == 21211 && error.code == "NUMBER_UNKNOWN" ? .undelivered : .refused
            entry.error = SMSLogEntry.Refusal(code: error.code, message: error.message)
            try? await store.log(entry, limit: configuration.logLimit)
            throw error
        }
        try? await store.log(entry, limit: configuration.logLimit)
        return (entry, account)
    }

    /// The text, once every door's check passed: a gateway fault, the input, a number no phone
    /// has, the number's rate window (last, so that a refused text is never counted).
    private func admit(_ handed: Handed) async throws(SMSError) -> OutgoingText {
        switch faults?.strike([.sms], requests: true) {
        case .status(let code, let retryAfter): throw .gatewayFault(status: code, retryAfter: retryAfter)
        case .latency(let minimum, let maximum): try? await sleep(faults?.latency(minimum, maximum) ?? .zero)
        default: break
        }
        let text = try handed.text.get()
        let found: String?
        do { found = try await phones.find(text.to) } catch { throw .storageFailed }
        guard found != nil else { throw .recipientUnknown(text.to.e164) }
        let wait: TimeInterval?
        do {
            wait = try await store.admit(number: text.to.e164, at: now(), window: configuration.rateWindow, limit: configuration.rateLimit)
        } catch { throw .storageFailed }
        if let wait {
            throw .tooMany(limit: configuration.rateLimit, window: configuration.rateWindow, retryAfter: max(1, Int(wait.rounded(.up))))
        }
        return text
    }

    private func deliver(_ id: String, _ text: OutgoingText) async throws(SMSError) -> String? {
        do { return try await phones.deliver(id, text) } catch { throw .storageFailed }
    }

    // MARK: the SMS log

    /// Newest first, to one number when given: at most `limit` (all it keeps).
    public func log(to number: PhoneNumber? = nil, limit: Int? = nil) async throws -> [SMSLogEntry] {
        try await store.log(to: number?.e164, limit: limit ?? configuration.logLimit)
    }

    /// One logged text, by its SID, as a sender with the account's credentials reads it back;
    /// `path` names it in the refusal when the log holds none such.
    public func entry(id: String, credentials: Credentials, path: String) async throws(SMSError) -> (entry: SMSLogEntry, account: SMSAccount) {
        let account = try await authenticated(credentials)
        let found: SMSLogEntry?
        do { found = try await store.entry(id: id) } catch { throw .storageFailed }
        guard let found else { throw .notFound(path) }
        return (found, account)
    }

    public func clearLog() async throws {
        try await store.eraseTexts()
    }

    // MARK: helpers

    /// `count` random bytes as lower-case hex: Twilio's SIDs and tokens.
    static func hex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
