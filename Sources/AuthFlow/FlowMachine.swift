import Foundation

/// What the phone must do after an event. The machine decides; the phone carries it out over
/// HTTP and feeds the outcome back as the next event.
public enum FlowAction: Equatable, Sendable {
    /// Nothing to do beyond publishing the new flow.
    case none
    /// Tell the backend the user confirmed the session (with the chosen account for a login or a
    /// transaction), passing the user's optional free text on.
    case confirmSession(accountID: String?, userInput: String?)
    /// Sign the exact transaction text shown to the user with the account's key.
    case confirmTransaction(accountID: String)
    /// Create the account's keys and register them, with a new PIN or proof of the existing one.
    case completeEnrolment(PinUse)
    /// Prove the PIN to the Second Factor Server for the chosen account.
    case verifyPin(accountID: String)
    /// Tell the backend the flow ended without success.
    case abandonSession(FlowError)

    public enum PinUse: Equatable, Sendable {
        case setNew
        case proveExisting
    }
}

/// The Second Factor Server's answer to a PIN.
public enum SecondFactorOutcome: Equatable, Sendable {
    case accepted(SecondFactorAccount)
    case rejected(SecondFactorAccount)
    /// Refused unseen during a penalty: the counters did not change (`penalisedFor` says how long).
    case penalised(SecondFactorAccount)
}

/// The session flows (ENROL, LOGIN, SIGN_TRANSACTION) as a value-type state machine: each flow
/// type is a fixed plan of interactions, one method per event, each returning the action to
/// carry out. No I/O, no clock, no PIN: those stay with the caller.
public struct FlowMachine: Sendable, Equatable {
    public private(set) var flow: Flow
    private var step: Step
    /// The interactions still to come after the current one.
    private var plan: [Stage]
    private var chosenAccountID: String?

    /// One interaction of a plan.
    enum Stage: Equatable, Sendable {
        case confirm
        case confirmTransaction
        case secondFactor(InteractionType)

        var interaction: InteractionType {
            switch self {
            case .confirm: .confirm
            case .confirmTransaction: .confirmTransaction
            case .secondFactor(let type): type
            }
        }
    }

    private enum Step: Equatable, Sendable {
        case awaiting(Stage)
        case checking(Stage)
        case finished
    }

    /// Starts the flow for a redeemed session. `accounts` are the phone's accounts at the
    /// session's server; `phoneHasPin` tells whether enrolment sets a PIN or verifies it.
    /// A session may pre-select an account (`preselectedAccountId`): then it is the only one offered.
    public static func start(id: String, session: SessionInfo, accounts: [AccountSummary],
                             phoneHasPin: Bool) -> (FlowMachine, FlowAction) {
        let offered: [AccountSummary] = switch (session.type, session.preselectedAccountId, session.userId) {
        case (.enrol, _, _): accounts
        case (_, let preselected?, _): accounts.filter { $0.id == preselected }
        case (_, nil, let user?): accounts.filter { $0.userId == user }
        case (_, nil, nil): accounts
        }
        let plan: [Stage] = switch session.type {
        case .enrol: [.confirm, .secondFactor(phoneHasPin ? .verifySecondFactor : .setSecondFactor)]
        case .signTransaction: [.confirm, .confirmTransaction, .secondFactor(.verifySecondFactor)]
        default: [.confirm, .secondFactor(.verifySecondFactor)]
        }
        var machine = FlowMachine(
            flow: Flow(id: id, type: session.type, state: .waitForInput, session: session, transaction: session.transaction),
            step: .finished, plan: Array(plan.dropFirst()))
        machine.ask(plan[0], confirmSessionInfo: ConfirmSessionInfo(accounts: offered, secondFactorNeeded: true))
        if session.type != .enrol && offered.isEmpty {
            let error = FlowError.noAccountsForServer(session.server.name)
            machine.finish(error: error)
            return (machine, .abandonSession(error))
        }
        return (machine, .none)
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
            if let accountID { id = accountID } else if info.accounts.count == 1 { id = info.accounts[0].id } else {
                throw .accountRequired
            }
            guard info.accounts.contains(where: { $0.id == id }) else { throw .unknownAccount(id) }
            chosenAccountID = id
        }
        startChecking(.confirm, input: .confirm)
        return .confirmSession(accountID: chosenAccountID, userInput: userInput.flatMap { $0.isEmpty ? nil : $0 })
    }

    public mutating func confirmTransaction() throws(FlowInputError) -> FlowAction {
        guard step == .awaiting(.confirmTransaction), let accountID = chosenAccountID else {
            throw .unexpected("confirmTransaction", flow)
        }
        startChecking(.confirmTransaction, input: .confirm)
        return .confirmTransaction(accountID: accountID)
    }

    /// The user gave a PIN (already checked against the PIN policy by the caller when setting).
    public mutating func inputPin() throws(FlowInputError) -> FlowAction {
        guard case .awaiting(let stage) = step, case .secondFactor(let interaction) = stage else {
            throw .unexpected("inputSecondFactor", flow)
        }
        let action: FlowAction
        switch (flow.type, interaction) {
        case (.enrol, .setSecondFactor): action = .completeEnrolment(.setNew)
        case (.enrol, _): action = .completeEnrolment(.proveExisting)
        default:
            guard let accountID = chosenAccountID else { throw .unexpected("inputSecondFactor", flow) }
            action = .verifyPin(accountID: accountID)
        }
        startChecking(stage, input: .pin)
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
        return succeeded(.confirm, input: .confirm)
    }

    /// The backend accepted the signature over the transaction text.
    public mutating func transactionConfirmed() -> FlowAction {
        guard step == .checking(.confirmTransaction) else { return .none }
        return succeeded(.confirmTransaction, input: .confirm)
    }

    public mutating func secondFactorChecked(_ outcome: SecondFactorOutcome) -> FlowAction {
        guard case .checking(let stage) = step, case .secondFactor(let interaction) = stage else { return .none }
        switch outcome {
        case .accepted(let account):
            flow.secondFactorAccount = account
            return succeeded(stage, input: .pin)
        case .rejected(let account), .penalised(let account):
            flow.secondFactorAccount = account
            flow.previousInteractionResult = InteractionResult(type: .pinFail, interactionType: interaction, inputTypes: [.pin])
            if account.isBlocked {
                finish(error: .pinBlocked)
                return .none // the Second Factor Server blocked it and ended the session itself
            }
            ask(stage)
            return .none
        }
    }

    /// A request failed (server unreachable, session expired, signature refused…).
    public mutating func failed(_ error: FlowError) -> FlowAction {
        guard !flow.state.isFinal else { return .none }
        finish(error: error)
        return .none
    }

    // MARK: helpers

    private mutating func startChecking(_ stage: Stage, input: InputType) {
        step = .checking(stage)
        flow.state = .processing
        flow.currentInteraction?.inputTypes = [input]
    }

    /// The current interaction succeeded: on to the next one of the plan, or DONE.
    private mutating func succeeded(_ stage: Stage, input: InputType) -> FlowAction {
        flow.previousInteractionResult = InteractionResult(type: .success, interactionType: stage.interaction, inputTypes: [input])
        guard !plan.isEmpty else {
            step = .finished
            flow.state = .done
            flow.currentInteraction = nil
            return .none
        }
        let next = plan.removeFirst()
        if next == .secondFactor(.verifySecondFactor), flow.secondFactorAccount?.isBlocked == true {
            finish(error: .pinBlocked)
            return .abandonSession(.pinBlocked)
        }
        ask(next)
        return .none
    }

    private mutating func ask(_ stage: Stage, confirmSessionInfo: ConfirmSessionInfo? = nil) {
        step = .awaiting(stage)
        flow.state = .waitForInput
        let secondFactorInfo: SecondFactorInfo? = if case .secondFactor = stage { .pinOnly } else { nil }
        flow.currentInteraction = Interaction(type: stage.interaction, confirmSessionInfo: confirmSessionInfo,
                                              secondFactorInfo: secondFactorInfo, inputTypes: [])
    }

    private mutating func finish(error: FlowError) {
        step = .finished
        flow.state = .error
        flow.error = error
        flow.currentInteraction = nil
    }
}
