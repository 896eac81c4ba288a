import AuthFlow
import Foundation
import Testing

/// Drives the machine through its events with no I/O, comparing states and actions.
@Suite struct FlowMachineTests {
    static let server = ServerInfo(name: "Demo", url: "http://127.0.0.1:8080", publicKey: "key")
    static func account(_ id: String, user: String = "alice") -> AccountSummary {
        AccountSummary(
            id: id, userId: user, displayName: user.capitalized,
            server: ServerSummary(name: "Demo", url: "http://127.0.0.1:8080"), createdAt: Date(timeIntervalSince1970: 0))
    }
    static let transactionText = "Pay 120.00 EUR to ACME Ltd, IBAN CH93 0076 2011 6238 5295 7"
    static func session(_ type: FlowType, user: String? = nil, preselected: String? = nil) -> SessionInfo {
        SessionInfo(
            id: "s1", type: type, expiresAt: Date(timeIntervalSince1970: 600), server: server,
            enrolInfo: type == .enrol ? EnrolInfo(displayName: "Alice", nsAccounts: []) : nil, userId: user,
            preselectedAccountId: preselected, transaction: type == .signTransaction ? transactionText : nil)
    }
    static let sfa = SecondFactorAccount(isBlocked: false, failedAttempts: 0, maxAttempts: 3)
    static func failed(_ n: Int, blocked: Bool = false) -> SecondFactorAccount {
        SecondFactorAccount(isBlocked: blocked, failedAttempts: n, maxAttempts: 3)
    }

    // MARK: ENROL

    @Test func enrolWithoutPinSetsOne() throws {
        var (machine, action) = FlowMachine.start(id: "f", session: Self.session(.enrol), accounts: [], phoneHasPin: false)
        #expect(action == .none)
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .confirm)
        #expect(machine.flow.currentInteraction?.confirmSessionInfo?.accounts == [])

        #expect(try machine.confirmSession(accountID: nil) == .confirmSession(accountID: nil, userInput: nil))
        #expect(machine.flow.state == .processing)
        #expect(machine.flow.currentInteraction?.inputTypes == [.confirm])

        #expect(machine.sessionConfirmed(secondFactorAccount: nil) == .none)
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .setSecondFactor)
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .pinOnly)
        #expect(machine.flow.previousInteractionResult == InteractionResult(type: .success, interactionType: .confirm, inputTypes: [.confirm]))

        #expect(try machine.inputPin() == .completeEnrolment(.setNew))
        #expect(machine.flow.state == .processing)
        #expect(machine.secondFactorChecked(.accepted(Self.sfa)) == .none)
        #expect(machine.flow.state == .done)
        #expect(machine.flow.currentInteraction == nil)
        #expect(machine.flow.previousInteractionResult?.interactionType == .setSecondFactor)
    }

    @Test func enrolWithPinVerifiesIt() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.enrol), accounts: [Self.account("a1")], phoneHasPin: true)
        #expect(machine.flow.currentInteraction?.confirmSessionInfo?.accounts.map(\.id) == ["a1"])
        _ = try machine.confirmSession(accountID: nil)
        _ = machine.sessionConfirmed(secondFactorAccount: Self.sfa)
        #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)
        #expect(try machine.inputPin() == .completeEnrolment(.proveExisting))
    }

    @Test func enrolRefusesAnExistingAccount() {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.enrol), accounts: [Self.account("a1")], phoneHasPin: true)
        let before = machine
        #expect(throws: FlowInputError.self) { try machine.confirmSession(accountID: "a1") }
        #expect(machine == before)
    }

    // MARK: LOGIN

    @Test func loginHappyPath() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: Self.session(.login), accounts: [Self.account("a1"), Self.account("a2", user: "bob")],
            phoneHasPin: true)
        #expect(machine.flow.currentInteraction?.confirmSessionInfo?.accounts.count == 2)
        #expect(try machine.confirmSession(accountID: "a2") == .confirmSession(accountID: "a2", userInput: nil))
        #expect(machine.sessionConfirmed(secondFactorAccount: Self.sfa) == .none)
        #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)
        #expect(machine.flow.secondFactorAccount == Self.sfa)
        #expect(try machine.inputPin() == .verifySecondFactor(accountID: "a2", with: .pin, then: nil))
        #expect(machine.flow.currentInteraction?.inputTypes == [.pin])
        _ = machine.secondFactorChecked(.accepted(Self.sfa))
        #expect(machine.flow.state == .done)
    }

    @Test func loginForANamedUserOffersOnlyTheirAccounts() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: Self.session(.login, user: "bob"),
            accounts: [Self.account("a1"), Self.account("a2", user: "bob")], phoneHasPin: true)
        #expect(machine.flow.currentInteraction?.confirmSessionInfo?.accounts.map(\.id) == ["a2"])
        // One account offered: confirming without naming it picks it.
        #expect(try machine.confirmSession(accountID: nil) == .confirmSession(accountID: "a2", userInput: nil))
    }

    @Test func loginWithoutAccountsEndsWithError34() {
        let (machine, action) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [], phoneHasPin: true)
        #expect(machine.flow.state == .error)
        #expect(machine.flow.error?.sdkCode == 34)
        #expect(action == .abandonSession(.noAccountsForServer("Demo")))
    }

    @Test func loginAccountChoiceIsChecked() {
        var (machine, _) = FlowMachine.start(
            id: "f", session: Self.session(.login),
            accounts: [Self.account("a1"), Self.account("a2")], phoneHasPin: true)
        let before = machine
        #expect(throws: FlowInputError.self) { try machine.confirmSession(accountID: nil) }
        #expect(throws: FlowInputError.self) { try machine.confirmSession(accountID: "zz") }
        #expect(machine == before)
    }

    @Test func wrongPinsAskAgainUntilBlocked() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        _ = try machine.confirmSession(accountID: "a1")
        _ = machine.sessionConfirmed(secondFactorAccount: Self.sfa)
        for n in 1...2 {
            _ = try machine.inputPin()
            #expect(machine.secondFactorChecked(.rejected(Self.failed(n))) == .none)
            #expect(machine.flow.state == .waitForInput)
            #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)
            #expect(machine.flow.currentInteraction?.inputTypes == [])
            #expect(
                machine.flow.previousInteractionResult == InteractionResult(type: .pinFail, interactionType: .verifySecondFactor, inputTypes: [.pin]))
            #expect(machine.flow.secondFactorAccount?.failedAttempts == n)
        }
        _ = try machine.inputPin()
        // with no biometric to go on with, the phone ends the session at the backend too
        #expect(machine.secondFactorChecked(.rejected(Self.failed(3, blocked: true))) == .abandonSession(.pinBlocked))
        #expect(machine.flow.state == .error)
        #expect(machine.flow.error?.code == "PIN_BLOCKED")
        #expect(machine.flow.secondFactorAccount?.isBlocked == true)
    }

    @Test func alreadyBlockedEndsBeforeAskingForThePin() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        _ = try machine.confirmSession(accountID: "a1")
        #expect(machine.sessionConfirmed(secondFactorAccount: Self.failed(3, blocked: true)) == .abandonSession(.pinBlocked))
        #expect(machine.flow.state == .error)
    }

    // MARK: cancel, refusals, failures

    @Test func cancelAtEveryWaitForInput() throws {
        var (confirm, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        var verify = confirm
        #expect(try confirm.cancel() == .abandonSession(.userCanceled))
        #expect(confirm.flow.state == .error)
        #expect(confirm.flow.error == .userCanceled)

        _ = try verify.confirmSession(accountID: "a1")
        _ = verify.sessionConfirmed(secondFactorAccount: Self.sfa)
        #expect(try verify.cancel() == .abandonSession(.userCanceled))
    }

    @Test func inputThatDoesNotFitChangesNothing() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        var before = machine
        #expect(throws: FlowInputError.self) { try machine.inputPin() }
        #expect(machine == before)

        _ = try machine.confirmSession(accountID: "a1")  // now PROCESSING
        before = machine
        #expect(throws: FlowInputError.self) { try machine.cancel() }
        #expect(throws: FlowInputError.self) { try machine.confirmSession(accountID: "a1") }
        #expect(throws: FlowInputError.self) { try machine.inputPin() }
        #expect(machine == before)
    }

    @Test func outcomesOutOfTurnAreIgnored() {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        let before = machine
        #expect(machine.sessionConfirmed(secondFactorAccount: Self.sfa) == .none)
        #expect(machine.secondFactorChecked(.accepted(Self.sfa)) == .none)
        #expect(machine == before)
    }

    @Test func aFailedRequestEndsTheFlowOnce() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        _ = try machine.confirmSession(accountID: "a1")
        let error = FlowError.serverConnection("refused")
        _ = machine.failed(error)
        #expect(machine.flow.state == .error)
        #expect(machine.flow.error?.sdkCode == 70)
        _ = machine.failed(.userCanceled)
        #expect(machine.flow.error == error)  // final states stay final
    }
    // MARK: pre-selected accounts, user input, penalties

    @Test func aPreselectedAccountIsTheOnlyOneOffered() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: Self.session(.login, user: "alice", preselected: "a2"),
            accounts: [Self.account("a1"), Self.account("a2")], phoneHasPin: true)
        #expect(machine.flow.currentInteraction?.confirmSessionInfo?.accounts.map(\.id) == ["a2"])
        #expect(throws: FlowInputError.self) { try machine.confirmSession(accountID: "a1") }
        #expect(try machine.confirmSession(accountID: nil) == .confirmSession(accountID: "a2", userInput: nil))
    }

    @Test func aPreselectedAccountThePhoneLacksEndsWithError34() {
        let (machine, action) = FlowMachine.start(
            id: "f", session: Self.session(.login, preselected: "elsewhere"),
            accounts: [Self.account("a1")], phoneHasPin: true)
        #expect(machine.flow.error?.sdkCode == 34)
        #expect(action == .abandonSession(.noAccountsForServer("Demo")))
    }

    @Test func userInputGoesWithTheConfirmation() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        let before = machine
        #expect(try machine.confirmSession(accountID: "a1", userInput: "") == .confirmSession(accountID: "a1", userInput: nil))
        machine = before
        #expect(
            try machine.confirmSession(accountID: "a1", userInput: "ticket 42\nfrom the desk")
                == .confirmSession(accountID: "a1", userInput: "ticket 42\nfrom the desk"))
    }

    @Test func aPenalisedPinAsksAgainWithTheCountersAsTheyWere() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.login), accounts: [Self.account("a1")], phoneHasPin: true)
        _ = try machine.confirmSession(accountID: "a1")
        _ = machine.sessionConfirmed(secondFactorAccount: Self.failed(2))
        _ = try machine.inputPin()
        let penalised = SecondFactorAccount(
            isBlocked: false, failedAttempts: 2, maxAttempts: 3, penalisedFor: 60,
            penalisedUntil: Date(timeIntervalSince1970: 660))
        #expect(machine.secondFactorChecked(.penalised(penalised)) == .none)
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)
        #expect(machine.flow.secondFactorAccount == penalised)
    }

    // MARK: SIGN_TRANSACTION

    @Test func transactionConfirmsTheTextThenAsksForTheSecondFactor() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: Self.session(.signTransaction, user: "alice"),
            accounts: [Self.account("a1")], phoneHasPin: true)
        #expect(machine.flow.type == .signTransaction)
        #expect(machine.flow.transaction == Self.transactionText)
        #expect(machine.flow.currentInteraction?.type == .confirm)
        // The transaction cannot be confirmed before the session, nor the PIN skipped.
        #expect(throws: FlowInputError.self) { try machine.confirmTransaction() }
        _ = try machine.confirmSession(accountID: nil)
        #expect(machine.sessionConfirmed(secondFactorAccount: Self.sfa) == .none)
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .confirmTransaction)
        #expect(throws: FlowInputError.self) { try machine.inputPin() }

        #expect(try machine.confirmTransaction() == .confirmTransaction(accountID: "a1"))
        #expect(machine.flow.state == .processing)
        #expect(machine.flow.currentInteraction?.inputTypes == [.confirm])
        #expect(machine.transactionConfirmed() == .none)
        #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)
        #expect(
            machine.flow.previousInteractionResult
                == InteractionResult(type: .success, interactionType: .confirmTransaction, inputTypes: [.confirm]))
        #expect(try machine.inputPin() == .verifySecondFactor(accountID: "a1", with: .pin, then: nil))
        _ = machine.secondFactorChecked(.accepted(Self.sfa))
        #expect(machine.flow.state == .done)
    }

    @Test func aBlockedPinEndsATransactionAfterItsConfirmation() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.signTransaction), accounts: [Self.account("a1")], phoneHasPin: true)
        _ = try machine.confirmSession(accountID: "a1")
        #expect(machine.sessionConfirmed(secondFactorAccount: Self.failed(3, blocked: true)) == .none)
        _ = try machine.confirmTransaction()
        #expect(machine.transactionConfirmed() == .abandonSession(.pinBlocked))
        #expect(machine.flow.error == .pinBlocked)
    }

    @Test func cancelWhileTheTransactionIsShown() throws {
        var (machine, _) = FlowMachine.start(id: "f", session: Self.session(.signTransaction), accounts: [Self.account("a1")], phoneHasPin: true)
        _ = try machine.confirmSession(accountID: "a1")
        _ = machine.sessionConfirmed(secondFactorAccount: Self.sfa)
        #expect(try machine.cancel() == .abandonSession(.userCanceled))
        #expect(machine.flow.state == .error)
        #expect(machine.flow.currentInteraction == nil)
    }
}
