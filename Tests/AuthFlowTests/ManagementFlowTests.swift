import AuthFlow
import Foundation
import Testing

/// The flows a phone starts itself (CHANGE_PIN, ADD_BIOMETRICS, REMOVE_BIOMETRICS), the
/// backend's HEADLESS_UPGRADE, and biometrics in every flow, as tables: each flow's events in
/// each state, the next state and the action.
@Suite struct ManagementFlowTests {
    static let server = FlowMachineTests.server
    static let account = FlowMachineTests.account("a1")
    static let sfa = FlowMachineTests.sfa
    static let blocked = FlowMachineTests.failed(3, blocked: true)

    static func session(_ type: FlowType) -> SessionInfo {
        SessionInfo(id: "m1", type: type, expiresAt: Date(timeIntervalSince1970: 600), server: server, userId: "alice")
    }

    static func start(_ type: FlowType, _ options: FlowOptions = FlowOptions(), secondFactor: SecondFactorAccount = sfa)
        -> (FlowMachine, FlowAction)
    {
        FlowMachine.start(
            id: "f", session: session(type), accounts: [account], phoneHasPin: true,
            secondFactorAccount: secondFactor, options: options)
    }

    static let bio = FlowOptions(biometricsAvailable: true)

    /// One user event: which input, and what the machine must answer.
    enum Input: CustomStringConvertible {
        case pin, biometrics
        var description: String { self == .pin ? "PIN" : "biometrics" }
    }

    /// A walk: at each WAIT_FOR_INPUT, the interaction and factors offered, the input given and
    /// the action expected; after the action succeeds the walk goes on.
    struct Walk: CustomTestStringConvertible, Sendable {
        let name: String
        let type: FlowType
        let options: FlowOptions
        let steps: [Step]
        var testDescription: String { name }

        struct Step: Sendable {
            let interaction: InteractionType
            let offered: [SecondFactorType]
            let input: Input
            let action: FlowAction
        }
    }

    static let walks: [Walk] = [
        Walk(
            name: "CHANGE_PIN: PIN, then the new PIN", type: .changePin, options: FlowOptions(),
            steps: [
                .init(
                    interaction: .verifySecondFactor, offered: [.pin], input: .pin,
                    action: .verifySecondFactor(accountID: "a1", with: .pin, then: nil)),
                .init(interaction: .setSecondFactor, offered: [.pin], input: .pin, action: .setPin(accountID: "a1")),
            ]),
        Walk(
            name: "CHANGE_PIN: a biometric, then the new PIN", type: .changePin, options: bio,
            steps: [
                .init(
                    interaction: .verifySecondFactor, offered: [.pin, .biometrics], input: .biometrics,
                    action: .verifySecondFactor(accountID: "a1", with: .biometrics, then: nil)),
                .init(interaction: .setSecondFactor, offered: [.pin], input: .pin, action: .setPin(accountID: "a1")),
            ]),
        Walk(
            name: "CHANGE_PIN with disallowPinChangeWithBiometric: PIN only", type: .changePin,
            options: FlowOptions(biometricsAvailable: true, disallowPinChangeWithBiometric: true),
            steps: [
                .init(
                    interaction: .verifySecondFactor, offered: [.pin], input: .pin,
                    action: .verifySecondFactor(accountID: "a1", with: .pin, then: nil)),
                .init(interaction: .setSecondFactor, offered: [.pin], input: .pin, action: .setPin(accountID: "a1")),
            ]),
        Walk(
            name: "CHANGE_PIN the Nevis way: old and new together", type: .changePin, options: FlowOptions(pinChangeStyle: .nevis),
            steps: [
                .init(interaction: .setSecondFactor, offered: [.pin], input: .pin, action: .changePin(accountID: "a1"))
            ]),
        Walk(
            name: "ADD_BIOMETRICS: PIN, then the biometric", type: .addBiometrics, options: bio,
            steps: [
                .init(
                    interaction: .verifySecondFactor, offered: [.pin], input: .pin,
                    action: .verifySecondFactor(accountID: "a1", with: .pin, then: nil)),
                .init(
                    interaction: .setSecondFactor, offered: [.biometrics], input: .biometrics,
                    action: .createBiometricKey(accountID: "a1", then: .registerBiometricKey)),
            ]),
        Walk(
            name: "ADD_BIOMETRICS with legacyBioAddFlow: the biometric, then the PIN", type: .addBiometrics,
            options: FlowOptions(legacyBioAddFlow: true),
            steps: [
                .init(
                    interaction: .setSecondFactor, offered: [.biometrics], input: .biometrics, action: .createBiometricKey(accountID: "a1", then: nil)
                ),
                .init(
                    interaction: .verifySecondFactor, offered: [.pin], input: .pin,
                    action: .verifySecondFactor(accountID: "a1", with: .pin, then: .registerBiometricKey)),
            ]),
        Walk(
            name: "REMOVE_BIOMETRICS with the PIN", type: .removeBiometrics, options: bio,
            steps: [
                .init(
                    interaction: .verifySecondFactor, offered: [.pin, .biometrics], input: .pin,
                    action: .verifySecondFactor(accountID: "a1", with: .pin, then: .removeBiometricKey))
            ]),
        Walk(
            name: "REMOVE_BIOMETRICS with the biometric", type: .removeBiometrics, options: bio,
            steps: [
                .init(
                    interaction: .verifySecondFactor, offered: [.pin, .biometrics], input: .biometrics,
                    action: .verifySecondFactor(accountID: "a1", with: .biometrics, then: .removeBiometricKey))
            ]),
    ]

    @Test(arguments: walks) func eachFlowWalksItsInteractions(walk: Walk) throws {
        var (machine, action) = Self.start(walk.type, walk.options)
        #expect(action == .none)
        #expect(machine.flow.type == walk.type)
        // the plan the screen draws is the walk the machine makes
        #expect(machine.flow.plan.map(\.interaction) == walk.steps.map(\.interaction.rawValue))
        for (index, step) in walk.steps.enumerated() {
            #expect(machine.flow.state == .waitForInput)
            #expect(machine.flow.currentInteraction?.type == step.interaction, "step \(index)")
            #expect(machine.flow.currentInteraction?.secondFactorInfo?.allowedSecondFactorTypes == step.offered, "step \(index)")
            #expect(machine.flow.currentInteraction?.secondFactorInfo?.showBiometrics == step.offered.contains(.biometrics))
            let given = try step.input == .pin ? machine.inputPin() : machine.inputBiometrics()
            #expect(given == step.action, "step \(index)")
            #expect(machine.flow.state == .processing)
            #expect(machine.flow.currentInteraction?.inputTypes == [step.input == .pin ? .pin : .biometrics])
            if case .createBiometricKey = given { _ = machine.biometricKeyCreated() } else { _ = machine.secondFactorChecked(.accepted(Self.sfa)) }
            #expect(machine.flow.previousInteractionResult?.type == .success)
            #expect(machine.flow.previousInteractionResult?.interactionType == step.interaction)
        }
        #expect(machine.flow.state == .done)
        #expect(machine.flow.currentInteraction == nil)
    }

    /// The variants a diagram names, and the factors a plan knows before it gets there.
    @Test func thePlanNamesItsVariantAndTheFactorsKnownInAdvance() {
        let usual = Self.start(.addBiometrics, Self.bio).0.flow
        #expect(usual.planVariant == nil)
        #expect(
            usual.plan == [
                PlanStep(interaction: "VERIFY_SECOND_FACTOR", factors: [.pin]),
                PlanStep(interaction: "SET_SECOND_FACTOR", factors: [.biometrics]),
            ])
        #expect(Self.start(.addBiometrics, FlowOptions(legacyBioAddFlow: true)).0.flow.planVariant == "legacyBioAddFlow")
        #expect(Self.start(.changePin, FlowOptions(pinChangeStyle: .nevis)).0.flow.planVariant == "Nevis style")
        #expect(Self.start(.changePin).0.flow.plan.first == PlanStep(interaction: "VERIFY_SECOND_FACTOR", factors: []))
        #expect(Self.start(.headlessUpgrade).0.flow.plan == [PlanStep(interaction: PlanStep.processing, factors: [])])
        let enrolOnAPhoneWithAPin = FlowMachine.start(id: "f", session: Self.session(.enrol), accounts: [], phoneHasPin: true).0.flow
        #expect(enrolOnAPhoneWithAPin.planVariant == "phone has a PIN")
        #expect(enrolOnAPhoneWithAPin.plan.last == PlanStep(interaction: "VERIFY_SECOND_FACTOR", factors: [.pin]))
    }

    /// Inputs the current interaction does not offer are refused and change nothing.
    @Test func aFactorNotOfferedIsRefused() throws {
        var (machine, _) = Self.start(.addBiometrics, Self.bio)
        var before = machine
        #expect(throws: FlowInputError.self) { try machine.inputBiometrics() }  // VERIFY [PIN] first
        #expect(machine == before)
        _ = try machine.inputPin()
        _ = machine.secondFactorChecked(.accepted(Self.sfa))
        before = machine
        let error = #expect(throws: FlowInputError.self) { try machine.inputPin() }  // SET [BIOMETRICS]
        #expect(error?.code == "FACTOR_NOT_OFFERED")
        #expect(machine == before)
        // a login without biometrics available takes the PIN only
        var (login, _) = FlowMachine.start(id: "f", session: FlowMachineTests.session(.login), accounts: [Self.account], phoneHasPin: true)
        _ = try login.confirmSession(accountID: "a1")
        _ = login.sessionConfirmed(secondFactorAccount: Self.sfa)
        #expect(throws: FlowInputError.self) { try login.inputBiometrics() }
    }

    /// docs/behaviour.md#biometrics: never biometrics for an enrolment.
    @Test func enrolmentNeverOffersBiometrics() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: FlowMachineTests.session(.enrol), accounts: [], phoneHasPin: true,
            options: Self.bio)
        _ = try machine.confirmSession(accountID: nil)
        _ = machine.sessionConfirmed(secondFactorAccount: Self.sfa)
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .pinOnly)
    }

    @Test(arguments: [FlowType.login, .signTransaction])
    func biometricsVerifyASessionFlow(type: FlowType) throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: FlowMachineTests.session(type), accounts: [Self.account], phoneHasPin: true,
            options: Self.bio)
        _ = try machine.confirmSession(accountID: "a1")
        _ = machine.sessionConfirmed(secondFactorAccount: Self.sfa)
        if type == .signTransaction {
            _ = try machine.confirmTransaction()
            _ = machine.transactionConfirmed()
        }
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
        #expect(try machine.inputBiometrics() == .verifySecondFactor(accountID: "a1", with: .biometrics, then: nil))
        _ = machine.secondFactorChecked(.accepted(Self.sfa))
        #expect(machine.flow.state == .done)
        #expect(machine.flow.previousInteractionResult?.inputTypes == [.biometrics])
    }

    /// A changed set of enrolled biometrics: BIOMETRICS_REMOVED, and the same interaction asks
    /// for the PIN only.
    @Test func biometricsRemovedFallsBackToThePin() throws {
        var (machine, _) = Self.start(.changePin, Self.bio)
        _ = try machine.inputBiometrics()
        #expect(machine.biometricsRemoved() == .none)
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .verifySecondFactor)
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .pinOnly)
        #expect(
            machine.flow.previousInteractionResult
                == InteractionResult(type: .biometricsRemoved, interactionType: .verifySecondFactor, inputTypes: [.biometrics]))
        #expect(throws: FlowInputError.self) { try machine.inputBiometrics() }
        #expect(try machine.inputPin() == .verifySecondFactor(accountID: "a1", with: .pin, then: nil))
        // a PIN answer is not a biometric one
        #expect(machine.biometricsRemoved() == .none)
    }

    /// A blocked PIN: the biometric alone is offered (and unblocks it), or, without one, the flow ends.
    @Test func aBlockedPinLeavesTheBiometricOrNothing() throws {
        var (machine, _) = FlowMachine.start(
            id: "f", session: FlowMachineTests.session(.login), accounts: [Self.account], phoneHasPin: true,
            options: Self.bio)
        _ = try machine.confirmSession(accountID: "a1")
        #expect(machine.sessionConfirmed(secondFactorAccount: Self.blocked) == .none)
        #expect(machine.flow.currentInteraction?.secondFactorInfo == .biometricsOnly)
        #expect(throws: FlowInputError.self) { try machine.inputPin() }
        _ = try machine.inputBiometrics()
        _ = machine.secondFactorChecked(.accepted(Self.sfa))
        #expect(machine.flow.state == .done)
        #expect(machine.flow.secondFactorAccount?.isBlocked == false)

        let (removal, action) = Self.start(.removeBiometrics, FlowOptions(), secondFactor: Self.blocked)
        #expect(action == .abandonSession(.pinBlocked))
        #expect(removal.flow.error == .pinBlocked)
    }

    /// The Nevis change (docs/behaviour.md#pin-change-both-ways): a wrong old PIN asks again (PIN_FAIL); a penalty asks again uncounted; too many
    /// end it with PIN_LOCKED.
    @Test func theNevisChangeAsksAgainUntilLocked() throws {
        var (machine, _) = Self.start(.changePin, FlowOptions(pinChangeStyle: .nevis))
        _ = try machine.inputPin()
        _ = machine.secondFactorChecked(.rejected(FlowMachineTests.failed(1)))
        #expect(machine.flow.state == .waitForInput)
        #expect(machine.flow.currentInteraction?.type == .setSecondFactor)
        #expect(machine.flow.previousInteractionResult?.type == .pinFail)
        _ = try machine.inputPin()
        _ = machine.secondFactorChecked(.penalised(FlowMachineTests.failed(1)))
        #expect(machine.flow.state == .waitForInput)
        _ = try machine.inputPin()
        _ = machine.secondFactorChecked(.rejected(Self.blocked))
        #expect(machine.flow.state == .error)
        #expect(machine.flow.error == .pinLocked)
    }

    @Test func headlessUpgradeRotatesWithoutInput() throws {
        var (machine, action) = Self.start(.headlessUpgrade)
        #expect(action == .rotateAccountKey(accountID: "a1"))
        #expect(machine.flow.state == .processing)
        #expect(machine.flow.currentInteraction == nil)
        #expect(throws: FlowInputError.self) { try machine.inputPin() }
        #expect(throws: FlowInputError.self) { try machine.cancel() }
        #expect(machine.accountKeyRotated() == .none)
        #expect(machine.flow.state == .done)
        #expect(machine.accountKeyRotated() == .none)

        let (none, refused) = FlowMachine.start(id: "f", session: Self.session(.headlessUpgrade), accounts: [], phoneHasPin: true)
        #expect(refused == .abandonSession(.noAccountsForServer("Demo")))
        #expect(none.flow.state == .error)
    }

    @Test(arguments: [FlowType.changePin, .addBiometrics, .removeBiometrics])
    func cancelEndsAManagementFlow(type: FlowType) throws {
        var (machine, _) = Self.start(type, Self.bio)
        #expect(try machine.cancel() == .abandonSession(.userCanceled))
        #expect(machine.flow.error == .userCanceled)
    }
}
