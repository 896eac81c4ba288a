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
        guard automation.count(phoneId: phoneId) < Self.maximumAutoAnswerRules else {
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
        automation.add(rule, phoneId: phoneId)
        return rule
    }

    public func autoAnswerRules(phoneId: String) async throws(PhoneError) -> [AutoAnswerRule] {
        _ = try await phoneAndAccounts(phoneId)
        return automation.current(phoneId: phoneId, at: now())
    }

    public func deleteAutoAnswerRule(phoneId: String, id: String) async throws(PhoneError) {
        _ = try await phoneAndAccounts(phoneId)
        guard automation.remove(id: id, phoneId: phoneId) else {
            throw PhoneError(.notFound, "RULE_NOT_FOUND", "this phone has no auto-answer rule \(id)")
        }
    }

    public func clearAutoAnswerRules(phoneId: String) async throws(PhoneError) {
        _ = try await phoneAndAccounts(phoneId)
        automation.forget(phoneId: phoneId)
    }

    /// Where a flow waits for the user: the first rule that covers the step answers it as the
    /// screen would. A step asked again after a failed answer waits for a person.
    func answerAutomatically(_ phoneId: String) async {
        guard let waiting = flows[phoneId]?.machine.flow, waiting.state == .waitForInput,
            automation.count(phoneId: phoneId) > 0 || flows[phoneId]?.answeringRule != nil,
            waiting.previousInteractionResult.map({ $0.type == .success }) ?? true,
            let (phone, accounts) = try? await phoneAndAccounts(phoneId)
        else { return }
        await checkRulePins(phoneId, phone: phone)
        // a person may have answered meanwhile
        guard let active = flows[phoneId], active.machine.flow == waiting,
            let request = Self.autoAnswerRequest(active.machine, accounts: accounts),
            let (decision, rule) = automation.answer(request, phoneId: phoneId, at: now(), continuing: active.answeringRule)
        else { return }
        flows[phoneId]?.answeringRule = rule
        let isTransaction = waiting.currentInteraction?.type == .confirmTransaction
        await WireExchange.$answeringRule.withValue(rule.id) {
            // a refused answer changes nothing: the flow waits for a person
            try? await carryOut(decision.action, with: rule, transaction: isTransaction, phoneId: phoneId)
        }
    }

    /// The same call a person's answer makes.
    private func carryOut(
        _ action: AutoAnswerDecision.Action, with rule: AutoAnswerRule, transaction: Bool, phoneId: String
    ) async throws(PhoneError) {
        switch action {
        case .decline: try await cancel(phoneId: phoneId)
        case .confirm where transaction: try await confirmTransaction(phoneId: phoneId)
        case .confirm(let account): try await confirmSession(phoneId: phoneId, accountID: account)
        case .inputPin:
            guard let copy = try rule.pinCopy() else { return }
            try await inputPin(phoneId: phoneId, pin: copy)
        case .inputBiometrics: try await inputBiometrics(phoneId: phoneId, recognised: true)
        }
    }

    /// The waiting step as the rules see it; nil for the phone's own flows (a PIN change is
    /// never answered by a rule).
    static func autoAnswerRequest(_ machine: FlowMachine, accounts: [AccountRecord]) -> AutoAnswerRequest? {
        let flow = machine.flow
        guard let session = flow.session, let interaction = flow.currentInteraction,
            let server = URL(string: session.server.url).flatMap(origin(of:))
        else { return nil }
        let step: AutoAnswerRequest.Step
        switch interaction.type {
        case .confirm, .confirmTransaction: step = .confirm
        case .verifySecondFactor, .setSecondFactor:
            guard let info = interaction.secondFactorInfo else { return nil }
            step = .secondFactor(
                allowed: info.allowedSecondFactorTypes, required: info.requiredSecondFactorTypes,
                newPin: flow.type == .enrol && interaction.type == .setSecondFactor)
        }
        // an enrolment's accounts are the user's others at that server, not a choice
        let offered = flow.type == .enrol ? [] : interaction.confirmSessionInfo?.accounts.map(\.id)
        let ids = offered ?? machine.chosenAccountID.map { [$0] } ?? []
        return AutoAnswerRequest(
            server: server, user: session.userId, texts: [session.transaction].compactMap { $0 } + session.announceInfo.values.sorted(),
            accounts: accounts.filter { ids.contains($0.id) }.map { AutoAnswerRequest.Account(id: $0.id, userId: $0.userId) }, step: step)
    }

    /// A PIN rule's PIN: the phone's own (derived with its salt and compared with its PIN key),
    /// or, on a phone without a PIN, one the policy allows as a first PIN.
    private func checkedRulePin(_ pin: GuardedBytes, phone: PhoneRecord) async throws(PhoneError) -> GuardedBytes {
        do { try pin.withBytes { bytes throws(PinPolicyError) in try PinPolicy.checkFormat(bytes, length: phone.pinLength) } } catch {
            throw PhoneError(.badRequest, error.code, error.message)
        }
        guard phone.pinSalt != nil else {
            try checkPolicy(pin, of: phone)
            return pin
        }
        guard let fits = try await pinPad.isThePhonesPin(pin, phone: phone) else {
            throw PhoneError(
                .conflict, "RULE_PIN_UNCHECKABLE",
                "this phone does not know its PIN key yet (it learns it when a PIN is next accepted); enter the PIN once, then add the rule")
        }
        guard fits else { throw PhoneError(.badRequest, "RULE_PIN_WRONG", "the rule's PIN is not this phone's PIN") }
        return pin
    }

    /// Rules whose PIN was checked under another salt (the PIN was set or changed since) are
    /// checked again, so that a PIN that is no longer the phone's is never tried.
    private func checkRulePins(_ phoneId: String, phone: PhoneRecord) async {
        let stale = automation.rulesToCheck(phoneId: phoneId, salt: phone.pinSalt)
        for rule in stale {
            guard let pin = rule.pin, let salt = phone.pinSalt else { continue }
            let fits = (try? await pinPad.isThePhonesPin(pin, phone: phone)) == true
            automation.pinChecked(rule: rule.id, phoneId: phoneId, salt: salt, fits: fits)
        }
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
