import AuthFlow
import Foundation
import SodiumKit

/// One auto-answer rule (docs/scripting.md#auto-answer-rules): which requests it covers and how
/// it answers them, as the virtual authenticator's automatic presence does for WebAuthn. Rules
/// live in memory only; the PIN never leaves it (not encoded, stored or logged).
public struct AutoAnswerRule: Codable, Sendable {
    public enum Answer: String, Codable, Sendable {
        case confirm
        case decline
    }

    public var id: String
    /// An origin (`https://host[:port]`) or a bare host name; nil: any server.
    public var server: String?
    public var user: String?
    /// A substring the request's text (transaction, announcement, privacyIDEA question) must contain.
    public var text: String?
    public var answer: Answer
    public var secondFactor: SecondFactorType?
    /// The account to pick, and the only one the rule answers for.
    public var account: String?
    /// Answers left; nil: no limit.
    public var remaining: Int?
    public var expiresAt: Date?
    /// The PIN the rule answers with, in guarded memory; never encoded.
    var pin: GuardedBytes?
    /// Whether `pin` is the phone's PIN under its current salt (checked by deriving its key, see
    /// `PhoneService.checkRulePins`), and the salt that check used. A PIN not known to fit
    /// answers only an enrolment that sets the phone's first PIN.
    var pinFits = false
    var pinCheckedWith: Data?

    enum CodingKeys: String, CodingKey {
        case id, server, user, text, answer, secondFactor, account, remaining, expiresAt
    }

    public init(
        id: String, server: String? = nil, user: String? = nil, text: String? = nil, answer: Answer,
        secondFactor: SecondFactorType? = nil, account: String? = nil, remaining: Int? = nil, expiresAt: Date? = nil
    ) {
        self.id = id
        self.server = server
        self.user = user
        self.text = text
        self.answer = answer
        self.secondFactor = secondFactor
        self.account = account
        self.remaining = remaining
        self.expiresAt = expiresAt
    }
}

/// A request a phone waits on, as the rules see it.
public struct AutoAnswerRequest: Sendable, Equatable {
    /// What the phone waits for.
    public enum Step: Sendable, Equatable {
        /// CONFIRM or CONFIRM_TRANSACTION.
        case confirm
        /// A second factor; `newPin`: the enrolment sets the phone's first PIN.
        case secondFactor(allowed: [SecondFactorType], required: [SecondFactorType], newPin: Bool)
        /// A privacyIDEA challenge; one with presence options needs a person to pick one.
        case privacyIDEA(asksPresence: Bool)
    }

    public struct Account: Sendable, Equatable {
        public var id: String
        public var userId: String

        public init(id: String, userId: String) {
            self.id = id
            self.userId = userId
        }
    }

    /// The server's origin.
    public var server: String
    public var user: String?
    public var texts: [String]
    /// The accounts offered (CONFIRM) or chosen (later steps).
    public var accounts: [Account]
    public var step: Step

    public init(server: String, user: String? = nil, texts: [String] = [], accounts: [Account] = [], step: Step) {
        self.server = server
        self.user = user
        self.texts = texts
        self.accounts = accounts
        self.step = step
    }
}

/// What a rule does with a request.
public struct AutoAnswerDecision: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Confirm (with this account where the rule or its user picks one).
        case confirm(account: String?)
        case inputPin
        case inputBiometrics
        case decline
    }

    public var rule: String
    public var action: Action
}

/// A phone's rules in the order added: the first that covers a request answers it, a rule with a
/// count is used up after that many answers, an expired one is ignored. No I/O, no clock: the
/// caller passes the time.
public struct AutoAnswerRules: Sendable {
    public private(set) var rules: [AutoAnswerRule] = []

    public init() {}

    public mutating func add(_ rule: AutoAnswerRule) { rules.append(rule) }

    /// Whether a rule of that id was there.
    public mutating func remove(id: String) -> Bool {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return false }
        rules.remove(at: index)
        return true
    }

    public mutating func removeAll() { rules.removeAll() }

    /// The rules still in force at `now`.
    public mutating func current(at now: Date) -> [AutoAnswerRule] {
        rules.removeAll { $0.expiresAt.map { $0 <= now } ?? false }
        return rules
    }

    /// The rule that answered a flow's earlier step (`continuing`, kept by the caller) answers its
    /// later steps without counting again; otherwise the first rule in force that covers the
    /// request answers, and counts once: at its last answer it is gone.
    public mutating func answer(
        _ request: AutoAnswerRequest, at now: Date, continuing: AutoAnswerRule? = nil
    ) -> (decision: AutoAnswerDecision, rule: AutoAnswerRule)? {
        if let continuing, let action = Self.action(of: continuing, for: request) {
            return (AutoAnswerDecision(rule: continuing.id, action: action), continuing)
        }
        for (index, rule) in current(at: now).enumerated() {
            guard let action = Self.action(of: rule, for: request) else { continue }
            if let remaining = rule.remaining {
                if remaining <= 1 { rules.remove(at: index) } else { rules[index].remaining = remaining - 1 }
            }
            return (AutoAnswerDecision(rule: rule.id, action: action), rule)
        }
        return nil
    }

    /// Marks what checking a rule's PIN found (see `AutoAnswerRule.pinFits`).
    mutating func pinChecked(rule id: String, salt: Data, fits: Bool) {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return }
        rules[index].pinCheckedWith = salt
        rules[index].pinFits = fits
    }

    /// How `rule` answers `request`, or nil when it does not cover it.
    static func action(of rule: AutoAnswerRule, for request: AutoAnswerRequest) -> AutoAnswerDecision.Action? {
        guard covers(rule, request) else { return nil }
        if rule.answer == .decline { return .decline }
        switch request.step {
        case .confirm:
            let byUser = rule.user.flatMap { user in request.accounts.first { $0.userId == user }?.id }
            let account = rule.account ?? byUser
            // a choice of accounts the rule does not make is left to a person
            if account == nil, request.accounts.count > 1 { return nil }
            return .confirm(account: account)
        case .privacyIDEA(let asksPresence):
            return asksPresence ? nil : .confirm(account: nil)
        case .secondFactor(let allowed, let required, let newPin):
            switch rule.secondFactor {
            case .pin? where allowed.contains(.pin) && (newPin ? rule.pin != nil : rule.pinFits): return .inputPin
            case .biometrics? where allowed.contains(.biometrics) && !required.contains(.pin): return .inputBiometrics
            default: return nil
            }
        }
    }

    /// Whether the request comes from the rule's server, user and account and holds its text.
    static func covers(_ rule: AutoAnswerRule, _ request: AutoAnswerRequest) -> Bool {
        if let server = rule.server, !Self.server(server, names: request.server) { return false }
        if let user = rule.user, request.user != user, !request.accounts.contains(where: { $0.userId == user }) { return false }
        if let text = rule.text, !request.texts.contains(where: { $0.contains(text) }) { return false }
        if let account = rule.account, !request.accounts.contains(where: { $0.id == account }) { return false }
        return true
    }

    /// A rule's server is an origin, compared as the allow-list compares them, or a host name.
    static func server(_ ruleServer: String, names requestOrigin: String) -> Bool {
        guard let requestURL = URL(string: requestOrigin) else { return false }
        if ruleServer.contains("://") {
            return URL(string: ruleServer).flatMap(origin(of:)) == origin(of: requestURL)
        }
        return requestURL.host?.lowercased() == ruleServer.lowercased()
    }
}
