import AuthFlow
import Foundation
import Testing

/// The seeds' finer rules, on the machine alone: a biometric that goes on after the PIN blocks
/// (seed 000), PIN and biometrics set together (seeds 000, 002), userInput with a second factor
/// (seed 002), no session object in the phone's own flows and the steps a configuration skips
/// (seed 001).
@Suite struct SeedRuleFlowTests {
    /// Seed 000: a biometric unblocks the PIN. The wrong PIN that blocks it, in an interaction
    /// that also offered the biometric, leaves the biometric alone instead of ending the flow.
    @Test(arguments: [FlowType.login, .signTransaction, .changePin, .removeBiometrics])
    func theBlockingPinGoesOnWithTheBiometric(type: FlowType) throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: FlowMachineTests.session(type), accounts: [ManagementFlowTests.account], phoneHasPin: true,
            secondFactorAccount: FlowMachineTests.failed(2), options: ManagementFlowTests.bio)
        if type == .login || type == .signTransaction {
            _ = try machine.confirmSession(accountID: "a1")
            _ = machine.sessionConfirmed(secondFactorAccount: FlowMachineTests.failed(2))
        }
        if type == .signTransaction {
            _ = try machine.confirmTransaction()
            _ = machine.transactionConfirmed()
        }
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
        _ = try machine.inputPin()
        #expect(machine.secondFactorChecked(.rejected(ManagementFlowTests.blocked)) == .none)
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .biometricsOnly)
        #expect(
            machine.flow.previousInteractionResult == InteractionResult(type: .pinFail, interactionType: .verifySecondFactor, inputTypes: [.pin]))
        #expect(throws: FlowInputError.self) { try machine.inputPin() }
        _ = try machine.inputBiometrics()
        _ = machine.secondFactorChecked(.accepted(ManagementFlowTests.sfa))
        #expect(machine.flow.state == (type == .changePin ? .waitForInput : .done))
    }

    /// Seed 001: the phone's own flows are not linked to a session, so they carry no session
    /// object (and their first interaction no confirmation info); the server's flows do.
    @Test(arguments: [FlowType.changePin, .addBiometrics, .removeBiometrics, .login])
    func onlyAServersFlowCarriesItsSession(type: FlowType) {
        let (machine, _) = ManagementFlowTests.start(type, ManagementFlowTests.bio)
        #expect((machine.flow.session == nil) == type.isManagement)
        #expect((machine.flow.currentInteraction?.confirmSessionInfo == nil) == type.isManagement)
    }

    /// Seeds 000 and 002: an enrolment that sets the PIN offers the biometric with it when the
    /// phone can take one; the PIN is required, the biometric goes in the same input.
    @Test func enrolmentSetsPinAndBiometricsInOneInput() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: FlowMachineTests.session(.enrol), accounts: [], phoneHasPin: false,
            options: FlowOptions(biometricsCanBeSet: true))
        _ = try machine.confirmSession(accountID: nil)
        _ = machine.sessionConfirmed(secondFactorAccount: nil)
        #expect(machine.flow.currentInteraction?.type == .setSecondFactor)
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .pinWithBiometrics)
        #expect(machine.flow.currentInteraction?.secondFactorInfo?.requiredSecondFactorTypes == [.pin])
        let before = machine
        #expect(throws: FlowInputError.self) { try machine.inputBiometrics() }  // the PIN is required
        #expect(machine == before)
        #expect(try machine.inputPin(withBiometrics: true) == .completeEnrolment(.setNew, withBiometrics: true))
        #expect(machine.flow.currentInteraction?.inputTypes == [.pin, .biometrics])
        _ = machine.secondFactorChecked(.accepted(ManagementFlowTests.sfa))
        #expect(machine.flow.state == .done)
        #expect(machine.flow.previousInteractionResult?.inputTypes == [.pin, .biometrics])

        // without a sensor ready, or where the PIN is only proven, the PIN alone
        var plain = FlowMachine.start(id: "f", session: FlowMachineTests.session(.enrol), accounts: [], phoneHasPin: false).0
        _ = try plain.confirmSession(accountID: nil)
        _ = plain.sessionConfirmed(secondFactorAccount: nil)
        #expect(plain.flow.currentInteraction?.secondFactorInfo == .pinOnly)
        #expect(throws: FlowInputError.self) { try plain.inputPin(withBiometrics: true) }
        var proving = FlowMachine.start(
            id: "f", session: FlowMachineTests.session(.enrol), accounts: [], phoneHasPin: true,
            options: FlowOptions(biometricsCanBeSet: true)
        ).0
        _ = try proving.confirmSession(accountID: nil)
        _ = proving.sessionConfirmed(secondFactorAccount: ManagementFlowTests.sfa)
        #expect(proving.flow.currentInteraction?.secondFactorInfo == .pinOnly)
    }

    /// Seed 002: `userInput` may come with the second factor and goes with its proof; the
    /// phone's own flows have no relying party to take it.
    @Test func userInputGoesWithTheSecondFactor() throws {
        var (login, _) = FlowMachine.start(
            id: "f", session: FlowMachineTests.session(.login), accounts: [ManagementFlowTests.account], phoneHasPin: true,
            options: ManagementFlowTests.bio)
        _ = try login.confirmSession(accountID: "a1")
        _ = login.sessionConfirmed(secondFactorAccount: ManagementFlowTests.sfa)
        var biometric = login
        #expect(try login.inputPin(userInput: "order 42") == .verifySecondFactor(accountID: "a1", with: .pin, then: nil, userInput: "order 42"))
        #expect(
            try biometric.inputBiometrics(userInput: "order 42")
                == .verifySecondFactor(accountID: "a1", with: .biometrics, then: nil, userInput: "order 42"))

        var (enrol, _) = FlowMachine.start(id: "f", session: FlowMachineTests.session(.enrol), accounts: [], phoneHasPin: false)
        _ = try enrol.confirmSession(accountID: nil)
        _ = enrol.sessionConfirmed(secondFactorAccount: nil)
        #expect(try enrol.inputPin(userInput: "hello") == .completeEnrolment(.setNew, userInput: "hello"))

        var (change, _) = ManagementFlowTests.start(.changePin)
        let before = change
        let refused = #expect(throws: FlowInputError.self) { try change.inputPin(userInput: "hello") }
        #expect(refused?.code == "USER_INPUT_NOT_EXPECTED")
        #expect(change == before)
        #expect(try change.inputPin(userInput: "") == .verifySecondFactor(accountID: "a1", with: .pin, then: nil))
    }

    // MARK: seed 001: the configuration may skip the confirmation or the second factor

    static func login(skipConfirmation: Bool = false, skipSecondFactor: Bool = false) -> SessionInfo {
        var session = FlowMachineTests.session(.login)
        session.skipConfirmation = skipConfirmation ? true : nil
        session.skipSecondFactor = skipSecondFactor ? true : nil
        return session
    }

    @Test func aSkippedSecondFactorEndsTheLoginWithItsConfirmation() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: Self.login(skipSecondFactor: true), accounts: [ManagementFlowTests.account], phoneHasPin: true)
        #expect(machine.flow.currentInteraction?.confirmSessionInfo?.secondFactorNeeded == false)
        #expect(machine.flow.plan.map(\.interaction) == ["CONFIRM"])
        #expect(machine.flow.planVariant == "second factor skipped")
        _ = try machine.confirmSession(accountID: "a1")
        #expect(machine.sessionConfirmed(secondFactorAccount: ManagementFlowTests.sfa) == .none)
        #expect(machine.flow.state == .done)

        let (usual, _) = FlowMachine.start(id: "f", session: Self.login(), accounts: [ManagementFlowTests.account], phoneHasPin: true)
        #expect(usual.flow.currentInteraction?.confirmSessionInfo?.secondFactorNeeded == true)
    }

    @Test func aSkippedConfirmationConfirmsByItselfWhenNoChoiceIsLeft() throws {
        var (machine, action) = FlowMachine.start(
            id: "f", session: Self.login(skipConfirmation: true), accounts: [ManagementFlowTests.account], phoneHasPin: true)
        #expect(action == .confirmSession(accountID: "a1", userInput: nil))
        #expect(machine.flow.state == .processing)
        #expect(machine.sessionConfirmed(secondFactorAccount: ManagementFlowTests.sfa) == .none)
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)

        // two accounts to choose from: the confirmation is asked after all
        let (choice, asked) = FlowMachine.start(
            id: "f", session: Self.login(skipConfirmation: true),
            accounts: [ManagementFlowTests.account, FlowMachineTests.account("a2")], phoneHasPin: true)
        #expect(asked == .none)
        #expect(choice.flow.currentInteraction?.type == .confirm)

        // both skipped: a login with no input at all
        var (silent, first) = FlowMachine.start(
            id: "f", session: Self.login(skipConfirmation: true, skipSecondFactor: true), accounts: [ManagementFlowTests.account],
            phoneHasPin: true)
        #expect(first == .confirmSession(accountID: "a1", userInput: nil))
        _ = silent.sessionConfirmed(secondFactorAccount: nil)
        #expect(silent.flow.state == .done)
    }
}
