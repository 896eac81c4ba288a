import AuthFlow
import BackendAPI
import Foundation
import Identifiers
import SodiumKit

/// Auto-answer rules (docs/scripting.md#auto-answer-rules): a phone answers the requests its
/// rules cover as a person would, through the same calls the screen makes, and says so on the
/// flow updates and exchanges that answer causes (`WireExchange.answeringRule`).
extension PhoneService {
    /// A rule as asked for, before the phone has checked it.
    public struct AutoAnswerRuleRequest: Sendable {
        public var server: String?
        public var user: String?
        public var text: String?
        public var answer: AutoAnswerRule.Answer
        public var pin: GuardedBytes?
        public var biometric: Bool
        public var account: String?
        public var count: Int?
        /// Seconds from now.
        public var expiresIn: Int?

        public init(
            server: String? = nil, user: String? = nil, text: String? = nil, answer: AutoAnswerRule.Answer, pin: GuardedBytes? = nil,
            biometric: Bool = false, account: String? = nil, count: Int? = nil, expiresIn: Int? = nil
        ) {
            self.server = server
            self.user = user
            self.text = text
            self.answer = answer
            self.pin = pin
            self.biometric = biometric
            self.account = account
            self.count = count
            self.expiresIn = expiresIn
        }
    }

    /// Bounds a phone's rules, which live in memory.
    public static let maximumAutoAnswerRules = 64

    /// Adds a rule after the others. A PIN is checked here, locally: against the phone's PIN key
    /// when it has a PIN (a wrong one is refused, and the backend never sees a try), against the
    /// PIN policy when it has none (such a rule answers only the enrolment that sets the PIN).
    public func addAutoAnswerRule(phoneId: String, _ asked: AutoAnswerRuleRequest) async throws(PhoneError) -> AutoAnswerRule {
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        try Self.check(asked, accounts: accounts)
        guard device.automation.count(phoneId: phoneId) < Self.maximumAutoAnswerRules else {
            throw PhoneError(.conflict, "TOO_MANY_RULES", "a phone keeps at most \(Self.maximumAutoAnswerRules) auto-answer rules")
        }
        var rule = AutoAnswerRule(
            id: UUID.random().uuidString.lowercased(), server: asked.server, user: asked.user, text: asked.text, answer: asked.answer,
            secondFactor: asked.pin != nil ? .pin : asked.biometric ? .biometrics : nil, account: asked.account, remaining: asked.count,
            expiresAt: asked.expiresIn.map { now().addingTimeInterval(TimeInterval($0)) })
        if let pin = asked.pin {
            rule.pin = try await checkedRulePin(pin, phone: phone)
            rule.pinCheckedWith = phone.pinSalt
            rule.pinFits = phone.pinSalt != nil
        }
        device.automation.add(rule, phoneId: phoneId)
        return rule
    }

    public func autoAnswerRules(phoneId: String) async throws(PhoneError) -> [AutoAnswerRule] {
        _ = try await phoneAndAccounts(phoneId)
        return device.automation.current(phoneId: phoneId, at: now())
    }

    public func deleteAutoAnswerRule(phoneId: String, id: String) async throws(PhoneError) {
        _ = try await phoneAndAccounts(phoneId)
        guard device.automation.remove(id: id, phoneId: phoneId) else {
            throw PhoneError(.notFound, "RULE_NOT_FOUND", "this phone has no auto-answer rule \(id)")
        }
    }

    public func clearAutoAnswerRules(phoneId: String) async throws(PhoneError) {
        _ = try await phoneAndAccounts(phoneId)
        device.automation.forget(phoneId: phoneId)
    }

    /// A PIN rule's PIN: the phone's own (derived with its salt and compared with its PIN key),
    /// or, on a phone without a PIN, one the policy allows as a first PIN.
    private func checkedRulePin(_ pin: GuardedBytes, phone: PhoneRecord) async throws(PhoneError) -> GuardedBytes {
        do { try pin.withBytes { bytes throws(PinPolicyError) in try PinPolicy.checkFormat(bytes, length: phone.pinLength) } } catch {
            throw PhoneError(.badRequest, error.code, error.message)
        }
        guard phone.pinSalt != nil else {
            try device.pinPad.checkPolicy(pin, of: phone)
            return pin
        }
        guard let fits = try await device.pinPad.isThePhonesPin(pin, phone: phone) else {
            throw PhoneError(
                .conflict, "RULE_PIN_UNCHECKABLE",
                "this phone does not know its PIN key yet (it learns it when a PIN is next accepted); enter the PIN once, then add the rule")
        }
        guard fits else { throw PhoneError(.badRequest, "RULE_PIN_WRONG", "the rule's PIN is not this phone's PIN") }
        return pin
    }

    /// What the rule's fields must be, checked before anything changes.
    private static func check(_ asked: AutoAnswerRuleRequest, accounts: [AccountRecord]) throws(PhoneError) {
        if asked.pin != nil, asked.biometric { throw .invalid("biometric", "goes without 'pin': a rule answers with one factor") }
        if asked.answer == .decline, asked.pin != nil || asked.biometric || asked.account != nil {
            throw .invalid("answer", "'decline' takes no 'pin', 'biometric' or 'account'")
        }
        if let count = asked.count, count < 1 { throw .invalid("count", "must be at least 1") }
        if let seconds = asked.expiresIn, seconds < 1 { throw .invalid("expiresIn", "must be at least 1 second") }
        if let server = asked.server, !isServerName(server) {
            throw .invalid("server", "must be an origin (https://host[:port]) or a host name")
        }
        for (field, value) in [("user", asked.user), ("text", asked.text)] {
            if let value, let problem = ReadableText.problem(in: value, limit: 256) { throw .invalid(field, problem) }
        }
        if let account = asked.account, !accounts.contains(where: { $0.id == account }) {
            throw .invalid("account", "is not an account of this phone")
        }
    }

    /// An origin with nothing after it, or a host name.
    private static func isServerName(_ server: String) -> Bool {
        if server.contains("://") {
            guard let url = URL(string: server), origin(of: url) != nil else { return false }
            return (url.path.isEmpty || url.path == "/") && url.query == nil && url.fragment == nil && url.user == nil
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-"))
        return !server.isEmpty && server.count <= 253 && server.unicodeScalars.allSatisfy { $0.isASCII && allowed.contains($0) }
    }
}
