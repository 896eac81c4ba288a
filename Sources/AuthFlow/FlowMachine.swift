import Foundation

/// What the phone must do after an event. The machine decides; the phone carries it out over
/// HTTP and feeds the outcome back as the next event.
public enum FlowAction: Equatable, Sendable {
    /// Nothing to do beyond publishing the new flow.
    case none
    /// Tell the backend the user confirmed the session (with the chosen account for a login).
    case confirmSession(accountID: String?)
    /// Create the account's keys and register them, with a new PIN or proof of the existing one.
    case completeEnrolment(PinUse)
    /// Prove the PIN to the Second Factor Server for the chosen account's login.
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
}

/// ENROL and LOGIN as a value-type state machine: one method per event, each returning the
/// action to carry out. No I/O, no clock, no PIN: those stay with the caller.
public struct FlowMachine: Sendable, Equatable {
    public private(set) var flow: Flow
    private var step: Step
    private let phoneHasPin: Bool
    private var chosenAccountID: String?

    private enum Step: Equatable, Sendable {
        case awaitingConfirmation
        case confirming
        case awaitingSecondFactor(InteractionType)
        case checkingSecondFactor(InteractionType)
        case finished
    }

    /// Starts the flow for a redeemed session. `accounts` are the phone's accounts at the
    /// session's server; `phoneHasPin` tells whether enrolment sets a PIN or verifies it.
    public static func start(id: String, session: SessionInfo, accounts: [AccountSummary],
                             phoneHasPin: Bool) -> (FlowMachine, FlowAction) {
        let offered = session.type == .login && session.userId != nil
            ? accounts.filter { $0.userId == session.userId } : accounts
        var machine = FlowMachine(
            flow: Flow(id: id, type: session.type, state: .waitForInput,
                       currentInteraction: Interaction(
                           type: .confirm,
                           confirmSessionInfo: ConfirmSessionInfo(accounts: offered, secondFactorNeeded: true),
                           secondFactorInfo: nil, inputTypes: []),
                       session: session),
            step: .awaitingConfirmation, phoneHasPin: phoneHasPin)
        if session.type == .login && offered.isEmpty {
            let error = FlowError.noAccountsForServer(session.server.name)
            machine.finish(error: error)
            return (machine, .abandonSession(error))
        }
        return (machine, .none)
    }

    // MARK: user events

    public mutating func confirmSession(accountID: String?) throws(FlowInputError) -> FlowAction {
        guard step == .awaitingConfirmation, let info = flow.currentInteraction?.confirmSessionInfo else {
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
        step = .confirming
        flow.state = .processing
        flow.currentInteraction?.inputTypes = [.confirm]
        return .confirmSession(accountID: chosenAccountID)
    }

    /// The user gave a PIN (already checked against the PIN policy by the caller when setting).
    public mutating func inputPin() throws(FlowInputError) -> FlowAction {
        guard case .awaitingSecondFactor(let interaction) = step else { throw .unexpected("inputSecondFactor", flow) }
        let action: FlowAction
        switch (flow.type, interaction) {
        case (.enrol, .setSecondFactor): action = .completeEnrolment(.setNew)
        case (.enrol, _): action = .completeEnrolment(.proveExisting)
        default:
            guard let accountID = chosenAccountID else { throw .unexpected("inputSecondFactor", flow) }
            action = .verifyPin(accountID: accountID)
        }
        step = .checkingSecondFactor(interaction)
        flow.state = .processing
        flow.currentInteraction?.inputTypes = [.pin]
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
        guard step == .confirming else { return .none }
        flow.secondFactorAccount = secondFactorAccount
        flow.previousInteractionResult = InteractionResult(type: .success, interactionType: .confirm, inputTypes: [.confirm])
        if secondFactorAccount?.isBlocked == true {
            finish(error: .pinBlocked)
            return .abandonSession(.pinBlocked)
        }
        let interaction: InteractionType = flow.type == .enrol && !phoneHasPin ? .setSecondFactor : .verifySecondFactor
        askForSecondFactor(interaction)
        return .none
    }

    public mutating func secondFactorChecked(_ outcome: SecondFactorOutcome) -> FlowAction {
        guard case .checkingSecondFactor(let interaction) = step else { return .none }
        switch outcome {
        case .accepted(let account):
            flow.secondFactorAccount = account
            flow.previousInteractionResult = InteractionResult(type: .success, interactionType: interaction, inputTypes: [.pin])
            step = .finished
            flow.state = .done
            flow.currentInteraction = nil
            return .none
        case .rejected(let account):
            flow.secondFactorAccount = account
            flow.previousInteractionResult = InteractionResult(type: .pinFail, interactionType: interaction, inputTypes: [.pin])
            if account.isBlocked {
                finish(error: .pinBlocked)
                return .none // the Second Factor Server blocked it and ended the session itself
            }
            askForSecondFactor(interaction)
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

    private mutating func askForSecondFactor(_ interaction: InteractionType) {
        step = .awaitingSecondFactor(interaction)
        flow.state = .waitForInput
        flow.currentInteraction = Interaction(type: interaction, confirmSessionInfo: nil,
                                              secondFactorInfo: .pinOnly, inputTypes: [])
    }

    private mutating func finish(error: FlowError) {
        step = .finished
        flow.state = .error
        flow.error = error
        flow.currentInteraction = nil
    }
}
