import AuthFlow
import Foundation
import Testing

@testable import Phone

/// The matching of auto-answer rules, with no I/O: first match in the order added, counts,
/// expiry, and what each rule covers and can answer.
@Suite struct AutoAnswerRulesTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let confirm = AutoAnswerRequest(
        server: "https://bank.example:8443", user: "alice", texts: ["Pay 10 EUR to Bob"],
        accounts: [.init(id: "a1", userId: "alice")], step: .confirm)

    static func rules(_ list: AutoAnswerRule...) -> AutoAnswerRules {
        var rules = AutoAnswerRules()
        for rule in list { rules.add(rule) }
        return rules
    }

    @Test func theFirstMatchingRuleAnswersInTheOrderAdded() {
        var rules = Self.rules(
            AutoAnswerRule(id: "other", server: "other.example", answer: .decline),
            AutoAnswerRule(id: "bank", server: "https://bank.example:8443", answer: .confirm),
            AutoAnswerRule(id: "any", answer: .decline))
        let answered = rules.answer(Self.confirm, at: Self.start)
        #expect(answered?.decision == AutoAnswerDecision(rule: "bank", action: .confirm(account: nil)))
    }

    @Test func aServerIsAnOriginOrAHostName() {
        for (server, covers) in [
            ("https://bank.example:8443", true), ("HTTPS://Bank.Example:8443/", true), ("bank.example", true),
            ("https://bank.example", false), ("http://bank.example:8443", false), ("evil.example", false),
        ] {
            #expect(AutoAnswerRules.covers(AutoAnswerRule(id: "r", server: server, answer: .confirm), Self.confirm) == covers, "\(server)")
        }
    }

    @Test func userTextAndAccountNarrowARule() {
        for (rule, covers) in [
            (AutoAnswerRule(id: "r", user: "alice", answer: .confirm), true),
            (AutoAnswerRule(id: "r", user: "bob", answer: .confirm), false),
            (AutoAnswerRule(id: "r", text: "10 EUR", answer: .confirm), true),
            (AutoAnswerRule(id: "r", text: "100 EUR", answer: .confirm), false),
            (AutoAnswerRule(id: "r", answer: .confirm, account: "a1"), true),
            (AutoAnswerRule(id: "r", answer: .confirm, account: "a2"), false),
        ] {
            #expect(AutoAnswerRules.covers(rule, Self.confirm) == covers, "\(rule)")
        }
    }

    @Test func aCountIsUsedUpAndAnExpiredRuleIsIgnored() {
        var rules = Self.rules(
            AutoAnswerRule(id: "twice", answer: .confirm, remaining: 2),
            AutoAnswerRule(id: "soon", answer: .decline, expiresAt: Self.start.addingTimeInterval(60)))
        #expect(rules.answer(Self.confirm, at: Self.start)?.decision.rule == "twice")
        #expect(rules.current(at: Self.start).first?.remaining == 1)
        #expect(rules.answer(Self.confirm, at: Self.start)?.decision.rule == "twice")
        #expect(rules.answer(Self.confirm, at: Self.start)?.decision.rule == "soon")
        #expect(rules.answer(Self.confirm, at: Self.start.addingTimeInterval(60)) == nil)
        #expect(rules.current(at: Self.start.addingTimeInterval(60)).isEmpty)
    }

    /// The rule that answered a flow's confirmation answers its second factor too, without
    /// counting a second answer.
    @Test func theRuleOfAFlowAnswersItsLaterStepsWithoutCountingAgain() throws {
        var rule = AutoAnswerRule(id: "once", answer: .confirm, secondFactor: .pin, remaining: 1)
        rule.pin = try .init(copying: Array("260418".utf8))
        rule.pinFits = true
        var rules = Self.rules(rule)
        let answered = rules.answer(Self.confirm, at: Self.start)
        let confirmed = try #require(answered)
        #expect(rules.rules.isEmpty)
        var verify = Self.confirm
        verify.step = .secondFactor(allowed: [.pin], required: [.pin], newPin: false)
        #expect(rules.answer(verify, at: Self.start) == nil)
        #expect(rules.answer(verify, at: Self.start, continuing: confirmed.rule)?.decision == .init(rule: "once", action: .inputPin))
    }

    @Test func aRuleAnswersOnlyTheFactorsItHoldsAndTheStepOffers() throws {
        var pinRule = AutoAnswerRule(id: "pin", answer: .confirm, secondFactor: .pin)
        pinRule.pin = try .init(copying: Array("260418".utf8))
        let biometric = AutoAnswerRule(id: "bio", answer: .confirm, secondFactor: .biometrics)
        let none = AutoAnswerRule(id: "none", answer: .confirm)
        func step(_ allowed: [SecondFactorType], _ required: [SecondFactorType], newPin: Bool = false) -> AutoAnswerRequest {
            var request = Self.confirm
            request.step = .secondFactor(allowed: allowed, required: required, newPin: newPin)
            return request
        }
        // a PIN not known to be the phone's sets a first PIN only
        #expect(AutoAnswerRules.action(of: pinRule, for: step([.pin], [.pin])) == nil)
        #expect(AutoAnswerRules.action(of: pinRule, for: step([.pin, .biometrics], [.pin], newPin: true)) == .inputPin)
        pinRule.pinFits = true
        #expect(AutoAnswerRules.action(of: pinRule, for: step([.pin], [.pin])) == .inputPin)
        #expect(AutoAnswerRules.action(of: pinRule, for: step([.biometrics], [.biometrics])) == nil)
        #expect(AutoAnswerRules.action(of: biometric, for: step([.pin, .biometrics], [])) == .inputBiometrics)
        #expect(AutoAnswerRules.action(of: biometric, for: step([.pin, .biometrics], [.pin])) == nil)
        #expect(AutoAnswerRules.action(of: none, for: step([.pin], [.pin])) == nil)
        #expect(AutoAnswerRules.action(of: AutoAnswerRule(id: "no", answer: .decline), for: step([.pin], [.pin])) == .decline)
    }

    @Test func aChoiceOfAccountsIsMadeByTheRuleOrLeftToAPerson() {
        var twoAccounts = Self.confirm
        twoAccounts.user = nil
        twoAccounts.accounts = [.init(id: "a1", userId: "alice"), .init(id: "b1", userId: "bob")]
        #expect(AutoAnswerRules.action(of: AutoAnswerRule(id: "r", answer: .confirm), for: twoAccounts) == nil)
        #expect(AutoAnswerRules.action(of: AutoAnswerRule(id: "r", user: "bob", answer: .confirm), for: twoAccounts) == .confirm(account: "b1"))
        #expect(
            AutoAnswerRules.action(of: AutoAnswerRule(id: "r", answer: .confirm, account: "a1"), for: twoAccounts) == .confirm(account: "a1"))
    }

    @Test func aPrivacyIDEAChallengeThatAsksForPresenceWaitsForAPerson() {
        let rule = AutoAnswerRule(id: "r", server: "pi.example", text: "Log in", answer: .confirm)
        let plain = AutoAnswerRequest(server: "https://pi.example", texts: ["Log in?"], step: .privacyIDEA(asksPresence: false))
        var presence = plain
        presence.step = .privacyIDEA(asksPresence: true)
        #expect(AutoAnswerRules.action(of: rule, for: plain) == .confirm(account: nil))
        #expect(AutoAnswerRules.action(of: rule, for: presence) == nil)
    }
}
