import Foundation

/// Every flow type as a value-type state machine: a fixed plan of interactions per type, one
/// method per event, each returning the action to carry out. No I/O, no clock, no PIN: those
/// stay with the caller.
public struct FlowMachine: Sendable, Equatable {
    public private(set) var flow: Flow
    private var step: Step
    /// The interactions still to come after the current one.
    private var plan: [Stage]
    /// What the flow changes once its last interaction succeeds.
    private let completion: FlowAction.Completion?
    private var options: FlowOptions
    /// The account confirmed for this flow (a login's or transaction's), once there is one.
    public private(set) var chosenAccountID: String?
    /// The input being checked, for the result that follows.
    private var givenInput: [InputType] = [.confirm]

    /// One interaction of a plan.
    enum Stage: Equatable, Sendable {
        case confirm
        case confirmTransaction
        case verify(VerifyKind)
        case set(SecondFactorType)
        /// The Nevis change: old and new PIN in one SET_SECOND_FACTOR.
        case changePin

        /// Whether the user gives a second factor here (`secondFactorNeeded` of the confirmation before).
        var takesSecondFactor: Bool {
            switch self {
            case .confirm, .confirmTransaction: false
            case .verify, .set, .changePin: true
            }
        }

        var interaction: InteractionType {
            switch self {
            case .confirm: .confirm
            case .confirmTransaction: .confirmTransaction
            case .verify: .verifySecondFactor
            case .set, .changePin: .setSecondFactor
            }
        }

        /// As a screen draws it; a verification that may offer biometrics names its factors only
        /// when it asks (showBiometrics decides then, docs/behaviour.md#biometrics).
        var planStep: PlanStep {
            let factors: [SecondFactorType] =
                switch self {
                case .confirm, .confirmTransaction, .verify(.pinOrBiometrics): []
                case .verify(.pinOnly), .changePin: [.pin]
                case .set(let factor): [factor]
                }
            return PlanStep(interaction: interaction.rawValue, factors: factors)
        }
    }

    enum VerifyKind: Equatable, Sendable {
        case pinOnly
        case pinOrBiometrics
    }

    private enum Step: Equatable, Sendable {
        case awaiting(Stage)
        case checking(Stage)
        /// HEADLESS_UPGRADE's key rotation: no interaction at all.
        case rotating
        case finished
    }

    /// Starts a flow. For a session flow `accounts` are the phone's accounts at the session's
    /// server (a session may pre-select one: then it is the only one offered); a management
    /// flow passes the one account it acts through. `phoneHasPin` tells whether enrolment sets
    /// a PIN or verifies it.
    public static func start(
        id: String, session: SessionInfo, accounts: [AccountSummary], phoneHasPin: Bool,
        secondFactorAccount: SecondFactorAccount? = nil,
        options: FlowOptions = FlowOptions()
    ) -> (FlowMachine, FlowAction) {
        let offered: [AccountSummary] =
            switch (session.type, session.preselectedAccountId, session.userId) {
            case (.enrol, _, _): accounts
            case (_, let preselected?, _): accounts.filter { $0.id == preselected }
            case (_, nil, let user?): accounts.filter { $0.userId == user }
            case (_, nil, nil): accounts
            }
        let planned = Self.plan(session.type, phoneHasPin: phoneHasPin, options: options, skipSecondFactor: session.skipSecondFactor == true)
        let plan = planned.stages
        var machine = FlowMachine(
            flow: Flow(
                id: id, type: session.type, state: .waitForInput,
                plan: plan.isEmpty ? [PlanStep(interaction: PlanStep.processing, factors: [])] : plan.map(\.planStep),
                planVariant: planned.variant,
                // seed 001: the phone's own flows (PIN change, biometrics on or off) carry no session object
                secondFactorAccount: secondFactorAccount, session: session.type.isManagement ? nil : session,
                transaction: session.transaction),
            step: .finished, plan: plan, completion: planned.completion, options: options)
        if session.type != .enrol {
            guard !offered.isEmpty else {
                let error = FlowError.noAccountsForServer(session.server.name)
                machine.finish(error: error)
                return (machine, .abandonSession(error))
            }
            // Only a session the user confirms may offer a choice; the others act for one account.
            if plan.first != .confirm { machine.chosenAccountID = offered[0].id }
        }
        guard let first = machine.plan.first else {
            machine.step = .rotating
            machine.flow.state = .processing
            return (machine, .rotateAccountKey(accountID: offered[0].id))
        }
        machine.plan.removeFirst()
        let secondFactorNeeded = machine.plan.contains { $0.takesSecondFactor }
        let info = first == .confirm ? ConfirmSessionInfo(accounts: offered, secondFactorNeeded: secondFactorNeeded) : nil
        // seed 001: the configuration may skip the confirmation, where no account choice is left
        if first == .confirm, session.skipConfirmation == true, session.type != .enrol, offered.count == 1 {
            machine.chosenAccountID = offered[0].id
            machine.flow.currentInteraction = Interaction(type: .confirm, confirmSessionInfo: info, secondFactorInfo: nil, inputTypes: [])
            machine.startChecking(.confirm, input: [])
            return (machine, .confirmSession(accountID: offered[0].id, userInput: nil))
        }
        let action = machine.ask(first, confirmSessionInfo: info)
        return (machine, action)
    }

    /// A flow type's interactions, what its success changes, and the name of the variant when
    /// it is not the usual one (docs/behaviour.md#flows, docs/behaviour.md#pin-change-both-ways).
    struct Plan {
        let stages: [Stage]
        var completion: FlowAction.Completion?
        var variant: String?
    }

    static func plan(_ type: FlowType, phoneHasPin: Bool, options: FlowOptions, skipSecondFactor: Bool = false) -> Plan {
        switch type {
        case .enrol:
            phoneHasPin ? Plan(stages: [.confirm, .verify(.pinOnly)], variant: "phone has a PIN") : Plan(stages: [.confirm, .set(.pin)])
        case .login:
            skipSecondFactor
                ? Plan(stages: [.confirm], variant: "second factor skipped") : Plan(stages: [.confirm, .verify(.pinOrBiometrics)])
        case .signTransaction: Plan(stages: [.confirm, .confirmTransaction, .verify(.pinOrBiometrics)])
        case .changePin:
            switch options.pinChangeStyle {
            case .nextAuth: Plan(stages: [.verify(options.disallowPinChangeWithBiometric ? .pinOnly : .pinOrBiometrics), .set(.pin)])
            case .nevis: Plan(stages: [.changePin], variant: "Nevis style")
            }
        case .addBiometrics:
            options.legacyBioAddFlow
                ? Plan(stages: [.set(.biometrics), .verify(.pinOnly)], completion: .registerBiometricKey, variant: "legacyBioAddFlow")
                : Plan(stages: [.verify(.pinOnly), .set(.biometrics)], completion: .registerBiometricKey)
        case .removeBiometrics: Plan(stages: [.verify(.pinOrBiometrics)], completion: .removeBiometricKey)
        case .headlessUpgrade: Plan(stages: [])
        }
    }

    // MARK: user events

    /// `userInput` is free text for the relying party, checked by the caller; empty means none.
    public mutating func confirmSession(accountID: String?, userInput: String? = nil) throws(FlowInputError) -> FlowAction {
        guard step == .awaiting(.confirm), let info = flow.currentInteraction?.confirmSessionInfo else {
            throw .unexpected("confirmSession", flow)
        }
        switch flow.type {
        case .enrol:
            guard accountID == nil else { throw .accountNotExpected }
        default:
            let id: String
            if let accountID {
                id = accountID
            } else if info.accounts.count == 1 {
                id = info.accounts[0].id
            } else {
                throw .accountRequired
            }
            guard info.accounts.contains(where: { $0.id == id }) else { throw .unknownAccount(id) }
            chosenAccountID = id
        }
        let userInput = try forRelyingParty(userInput)
        startChecking(.confirm, input: [.confirm])
        return .confirmSession(accountID: chosenAccountID, userInput: userInput)
    }

    public mutating func confirmTransaction() throws(FlowInputError) -> FlowAction {
        guard step == .awaiting(.confirmTransaction), let accountID = chosenAccountID else {
            throw .unexpected("confirmTransaction", flow)
        }
        startChecking(.confirmTransaction, input: [.confirm])
        return .confirmTransaction(accountID: accountID)
    }

    /// The user gave a PIN (checked against the PIN policy by the caller when it is a new one),
    /// at an enrolment's SET_SECOND_FACTOR perhaps with a biometric in the same input (seeds
    /// 000 and 002: both may be set at once).
    /// `userInput` is free text for the relying party (seed 002), checked by the caller.
    public mutating func inputPin(withBiometrics: Bool = false, userInput: String? = nil) throws(FlowInputError) -> FlowAction {
        guard case .awaiting(let stage) = step, flow.currentInteraction?.secondFactorInfo != nil else {
            throw .unexpected("inputSecondFactor", flow)
        }
        let userInput = try forRelyingParty(userInput)
        guard offered.contains(.pin) else { throw .factorNotOffered(.pin, flow) }
        if withBiometrics {
            guard offered.contains(.biometrics), flow.type == .enrol, case .set = stage else {
                throw .factorNotOffered(.biometrics, flow, with: .pin)
            }
        }
        let action: FlowAction
        switch (flow.type, stage, chosenAccountID) {
        case (.enrol, .set, _): action = .completeEnrolment(.setNew, withBiometrics: withBiometrics, userInput: userInput)
        case (.enrol, _, _): action = .completeEnrolment(.proveExisting, userInput: userInput)
        case (_, .verify, let account?):
            action = .verifySecondFactor(accountID: account, with: .pin, then: finalCompletion, userInput: userInput)
        case (_, .set(.pin), let account?): action = .setPin(accountID: account)
        case (_, .changePin, let account?): action = .changePin(accountID: account)
        default: throw .unexpected("inputSecondFactor", flow)
        }
        startChecking(stage, input: withBiometrics ? [.pin, .biometrics] : [.pin])
        return action
    }

    /// The simulated sensor matched the user's biometric.
    public mutating func inputBiometrics(userInput: String? = nil) throws(FlowInputError) -> FlowAction {
        guard case .awaiting(let stage) = step, let info = flow.currentInteraction?.secondFactorInfo else {
            throw .unexpected("inputSecondFactor", flow)
        }
        guard offered.contains(.biometrics) else { throw .factorNotOffered(.biometrics, flow) }
        if info.requiredSecondFactorTypes.contains(.pin) { throw .factorRequired(.pin) }
        guard let account = chosenAccountID else { throw .unexpected("inputSecondFactor", flow) }
        let userInput = try forRelyingParty(userInput)
        let action: FlowAction =
            switch stage {
            case .set: .createBiometricKey(accountID: account, then: finalCompletion)
            default: .verifySecondFactor(accountID: account, with: .biometrics, then: finalCompletion, userInput: userInput)
            }
        startChecking(stage, input: [.biometrics])
        return action
    }

    public mutating func cancel() throws(FlowInputError) -> FlowAction {
        guard flow.state == .waitForInput else { throw .unexpected("cancel", flow) }
        finish(error: .userCanceled)
        return .abandonSession(.userCanceled)
    }

    // MARK: outcomes of the phone's requests

    /// The backend accepted the confirmation; `secondFactorAccount` is the SFS's view of the PIN.
    public mutating func sessionConfirmed(secondFactorAccount: SecondFactorAccount?) -> FlowAction {
        guard step == .checking(.confirm) else { return .none }
        flow.secondFactorAccount = secondFactorAccount
        return succeeded(.confirm)
    }

    /// The backend accepted the signature over the transaction text.
    public mutating func transactionConfirmed() -> FlowAction {
        guard step == .checking(.confirmTransaction) else { return .none }
        return succeeded(.confirmTransaction)
    }

    /// The biometric key exists (and, where the action said so, the server has it).
    public mutating func biometricKeyCreated() -> FlowAction {
        guard step == .checking(.set(.biometrics)) else { return .none }
        return succeeded(.set(.biometrics))
    }

    public mutating func secondFactorChecked(_ outcome: SecondFactorOutcome) -> FlowAction {
        guard case .checking(let stage) = step, stage != .confirm, stage != .confirmTransaction else { return .none }
        switch outcome {
        case .accepted(let account):
            flow.secondFactorAccount = account
            return succeeded(stage)
        case .rejected(let account), .penalised(let account):
            flow.secondFactorAccount = account
            flow.previousInteractionResult = InteractionResult(type: .pinFail, interactionType: stage.interaction, inputTypes: givenInput)
            guard account.isBlocked else { return ask(stage) }
            // A biometric unblocks the PIN (docs/behaviour.md#failure-counting-blocking-and-penalties):
            // an interaction that offered one goes on with the biometric alone.
            if offered.contains(.biometrics) { return ask(stage) }
            let error: FlowError = stage == .changePin ? .pinLocked : .pinBlocked
            finish(error: error)
            return .abandonSession(error)
        }
    }

    /// The enrolled biometrics changed since the key was made: the key is gone, and the same
    /// interaction is asked again without the biometric (BIOMETRICS_REMOVED, docs/behaviour.md#biometrics).
    public mutating func biometricsRemoved() -> FlowAction {
        guard case .checking(let stage) = step, givenInput == [.biometrics] else { return .none }
        options.biometricsAvailable = false
        flow.previousInteractionResult = InteractionResult(
            type: .biometricsRemoved, interactionType: stage.interaction,
            inputTypes: [.biometrics])
        return ask(stage)
    }

    /// HEADLESS_UPGRADE: the backend holds the new account key.
    public mutating func accountKeyRotated() -> FlowAction {
        guard step == .rotating else { return .none }
        step = .finished
        flow.state = .done
        return .none
    }

    /// A request failed (server unreachable, session expired, signature refused…).
    public mutating func failed(_ error: FlowError) -> FlowAction {
        guard !flow.state.isFinal else { return .none }
        finish(error: error)
        return .none
    }

    // MARK: helpers

    /// Free text goes to a relying party, so not in the phone's own flows; empty means none.
    private func forRelyingParty(_ userInput: String?) throws(FlowInputError) -> String? {
        guard let userInput, !userInput.isEmpty else { return nil }
        guard !flow.type.isManagement else { throw .userInputNotExpected(flow.type) }
        return userInput
    }

    /// The factors the current interaction takes.
    private var offered: [SecondFactorType] { flow.currentInteraction?.secondFactorInfo?.allowedSecondFactorTypes ?? [] }

    /// The last interaction of a management flow carries its change with it.
    private var finalCompletion: FlowAction.Completion? { plan.isEmpty ? completion : nil }

    private mutating func startChecking(_ stage: Stage, input: [InputType]) {
        step = .checking(stage)
        givenInput = input
        flow.state = .processing
        flow.currentInteraction?.inputTypes = input
    }

    /// The current interaction succeeded: on to the next one of the plan, or DONE.
    private mutating func succeeded(_ stage: Stage) -> FlowAction {
        flow.previousInteractionResult = InteractionResult(type: .success, interactionType: stage.interaction, inputTypes: givenInput)
        guard !plan.isEmpty else {
            step = .finished
            flow.state = .done
            flow.currentInteraction = nil
            return .none
        }
        return ask(plan.removeFirst())
    }

    /// Waits for the user on `stage`; a verification that no factor can pass ends the flow.
    private mutating func ask(_ stage: Stage, confirmSessionInfo: ConfirmSessionInfo? = nil) -> FlowAction {
        let secondFactorInfo = secondFactorInfo(for: stage)
        if secondFactorInfo?.allowedSecondFactorTypes.isEmpty == true {
            finish(error: .pinBlocked)
            return .abandonSession(.pinBlocked)
        }
        step = .awaiting(stage)
        flow.state = .waitForInput
        flow.currentInteraction = Interaction(
            type: stage.interaction, confirmSessionInfo: confirmSessionInfo,
            secondFactorInfo: secondFactorInfo, inputTypes: [])
        return .none
    }

    /// docs/behaviour.md#biometrics: biometrics never verify an enrolment (though one may set them
    /// with its new PIN), only where the flow allows them and the phone offers them; a blocked PIN
    /// leaves the biometric alone, or nothing.
    private func secondFactorInfo(for stage: Stage) -> SecondFactorInfo? {
        let pinBlocked = flow.secondFactorAccount?.isBlocked == true
        switch stage {
        case .confirm, .confirmTransaction: return nil
        case .set(.pin) where flow.type == .enrol && options.biometricsCanBeSet: return .pinWithBiometrics
        case .set(.pin), .changePin: return .pinOnly
        case .set(.biometrics): return .biometricsOnly
        case .verify(let kind):
            let biometrics = kind == .pinOrBiometrics && options.biometricsAvailable && flow.type != .enrol
            switch (pinBlocked, biometrics) {
            case (false, false): return .pinOnly
            case (false, true): return .pinOrBiometrics
            case (true, true): return .biometricsOnly
            case (true, false): return SecondFactorInfo(allowed: [], required: [])
            }
        }
    }

    private mutating func finish(error: FlowError) {
        step = .finished
        flow.state = .error
        flow.error = error
        flow.currentInteraction = nil
    }
}
