import AuthFlow
import BackendAPI
import Foundation

/// The device's auto-answer rules (docs/scripting.md#auto-answer-rules) over the SDK's flows: a
/// flow waiting for the user is answered by the first rule that covers its step, through the same
/// calls the screen makes, and says so on the flow updates and exchanges that answer causes
/// (`WireExchange.answeringRule`).
extension SDKApp {
    /// Where a flow waits for the user: the first rule that covers the step answers it as the
    /// screen would. A step asked again after a failed answer waits for a person.
    func answerAutomatically(_ phoneId: String) async {
        guard let waiting = phones[phoneId]?.flow?.machine.flow, waiting.state == .waitForInput,
            device.automation.count(phoneId: phoneId) > 0 || phones[phoneId]?.flow?.answeringRule != nil,
            waiting.previousInteractionResult.map({ $0.type == .success }) ?? true,
            let (phone, accounts) = try? await device.phoneAndAccounts(phoneId)
        else { return }
        await checkRulePins(phoneId, phone: phone)
        // a person may have answered meanwhile
        guard let active = phones[phoneId]?.flow, active.machine.flow == waiting,
            let request = Self.autoAnswerRequest(active.machine, accounts: accounts),
            let (decision, rule) = device.automation.answer(request, phoneId: phoneId, at: device.now(), continuing: active.answeringRule)
        else { return }
        phones[phoneId]?.flow?.answeringRule = rule
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

    /// Rules whose PIN was checked under another salt (the PIN was set or changed since) are
    /// checked again, so that a PIN that is no longer the phone's is never tried.
    func checkRulePins(_ phoneId: String, phone: PhoneRecord) async {
        let stale = device.automation.rulesToCheck(phoneId: phoneId, salt: phone.pinSalt)
        for rule in stale {
            guard let pin = rule.pin, let salt = phone.pinSalt else { continue }
            let fits = (try? await device.pinPad.isThePhonesPin(pin, phone: phone)) == true
            device.automation.pinChecked(rule: rule.id, phoneId: phoneId, salt: salt, fits: fits)
        }
    }

}
