import AuthFlow
import BackendAPI
import BlockingWork
import Foundation
import OTP
import OutOfBand
import SodiumKit

/// The second factors: the PIN and the simulated biometric prompt as the user gives them, their
/// proofs at the Second Factor Server, and the keys a PIN change or ADD_BIOMETRICS registers.
extension SDKApp {
    /// A PIN; for the Nevis PIN change also the old one; at an enrolment's SET_SECOND_FACTOR
    /// perhaps a biometric in the same input (the sensor always matches there, seed 000). Both
    /// PINs are wiped when this returns, whatever happened. A new PIN that breaks the policy, or
    /// equals the old one, is refused before anything is sent: the flow asks again (the Nevis
    /// change's recoverable errors, docs/behaviour.md#pin-change-both-ways).
    public func inputPin(
        phoneId: String, pin: GuardedBytes, oldPin: GuardedBytes? = nil, withBiometrics: Bool = false, userInput: String? = nil
    ) async throws(PhoneError) {
        defer {
            pin.reset()
            oldPin?.reset()
        }
        try Self.checkUserInput(userInput)
        guard let active = phones[phoneId]?.flow, !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        let flow = active.machine.flow
        let nevisChange =
            flow.type == .changePin && flow.currentInteraction?.type == .setSecondFactor
            && flow.previousInteractionResult?.interactionType != .verifySecondFactor
        if nevisChange, oldPin == nil { throw PhoneError(.badRequest, "MISSING_FIELD", "the PIN change needs 'oldPin' with the new 'pin'") }
        if !nevisChange, oldPin != nil { throw .invalid("oldPin", "goes only with a PIN change that asks old and new together") }
        // A PIN of the wrong shape is refused before anything: no key is derived, nothing is sent
        // or counted, and the screen asks again.
        let local = try await device.phoneAndAccounts(phoneId)
        let phone = local.0
        if withBiometrics, !phone.biometricsCanBeSet {
            throw .biometricsUnavailable("the sensor has no enrolled fingerprint or face, or biometrics are disabled")
        }
        for entry in [pin, oldPin].compactMap({ $0 }) {
            do { try entry.withBytes { bytes throws(PinPolicyError) in try PinPolicy.checkFormat(bytes, length: phone.pinLength) } } catch {
                throw PhoneError(.badRequest, error.code, error.message)
            }
        }
        if Self.setsPin(flow) {
            try device.pinPad.checkPolicy(pin, of: phone)
            if let oldPin, pin.hasSameBytes(as: oldPin) {
                throw PhoneError(.badRequest, "OLD_PIN_EQUALS_NEW_PIN", "the new PIN must differ from the old one")
            }
        }
        // a PIN the phone has no room to derive now is refused before the flow moves: the screen asks again
        try device.pinPad.takePlace(for: phoneId)
        defer { device.pinPad.leavePlace(of: phoneId) }
        let action = try applyUserEvent(phoneId) { machine throws(FlowInputError) in
            try machine.inputPin(withBiometrics: withBiometrics, userInput: userInput)
        }
        await run(action, phoneId: phoneId, pin: pin, oldPin: oldPin, read: local)
    }

    /// A new PIN checked against the policy as soon as it is first typed, before the user
    /// repeats it: the check `inputPin` makes of it, with nothing sent, counted or changed. The
    /// policy lives here once; the screen asks rather than copying it. The PIN is wiped when this
    /// returns, whatever happened.
    public func checkNewPin(phoneId: String, pin: GuardedBytes) async throws(PhoneError) {
        defer { pin.reset() }
        let (phone, _) = try await device.phoneAndAccounts(phoneId)
        guard let active = phones[phoneId]?.flow, !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        guard Self.setsPin(active.machine.flow) else {
            throw PhoneError(.conflict, "UNEXPECTED_INPUT", "the flow is not setting a PIN now")
        }
        try device.pinPad.checkPolicy(pin, of: phone)
    }

    /// Whether the flow waits for a new PIN (SET_SECOND_FACTOR with the PIN required).
    private static func setsPin(_ flow: Flow) -> Bool {
        flow.currentInteraction?.type == .setSecondFactor && flow.currentInteraction?.secondFactorInfo?.requiredSecondFactorTypes == [.pin]
    }

    /// The simulated biometric prompt: a match goes on to the flow; no match changes nothing
    /// (the OS prompt failed; the user may try again or use the PIN).
    public func inputBiometrics(phoneId: String, recognised: Bool, userInput: String? = nil) async throws(PhoneError) {
        try Self.checkUserInput(userInput)
        guard let active = phones[phoneId]?.flow, !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        let local = try await device.phoneAndAccounts(phoneId)
        let phone = local.0
        guard phone.biometricSensor, phone.enrolledFeatures > 0 else {
            throw .biometricsUnavailable("the sensor has no enrolled fingerprint or face")
        }
        var probe = active.machine
        do { _ = try probe.inputBiometrics(userInput: userInput) } catch { throw PhoneError(.conflict, error.code, error.message) }
        guard recognised else {
            throw PhoneError(.badRequest, "BIOMETRIC_NOT_RECOGNISED", "the sensor did not recognise the biometric; try again or use the PIN")
        }
        let action = try applyUserEvent(phoneId) { machine throws(FlowInputError) in try machine.inputBiometrics(userInput: userInput) }
        await run(action, phoneId: phoneId, read: local)
    }

    /// The PIN's proof, then whatever the flow does with an accepted factor.
    func verifyPinAtServer(
        _ step: FlowStep, _ pin: GuardedBytes, accountID: String, then: FlowAction.Completion?, userInput: String? = nil
    ) async throws(PhoneError) -> FlowAction {
        let (phone, accounts, active) = (step.phone, step.accounts, step.active)
        let phoneId = step.phone.id
        let response = try await provePin(pin, phone: phone, accounts: accounts, accountID: accountID, active: active, userInput: userInput)
        return try await afterVerification(response, then: then, phone: phone, accounts: accounts, accountID: accountID, phoneId: phoneId)
    }

    /// The biometric key's proof; a key the enrolled features no longer fit is BIOMETRICS_REMOVED (docs/behaviour.md#biometrics).
    func verifyBiometricsAtServer(
        _ step: FlowStep, accountID: String, then: FlowAction.Completion?, userInput: String?
    ) async throws(PhoneError) -> FlowAction {
        let (phone, accounts, active) = (step.phone, step.accounts, step.active)
        let phoneId = step.phone.id
        guard let key = phone.validBiometricKey else { return try await biometricsRemoved(phone, phoneId: phoneId) }
        let accountKey = try SDKKeys.accountKey(accounts, accountID)
        let biometricKey = try SDKKeys.keyPair(key)
        let message = SignedMessage.verifySecondFactor(sessionId: active.sessionId, challenge: active.challenge, accountId: accountID)
        let response: SecondFactorResponse
        do {
            response = try await device.network.post(
                active.serverURL, BackendRoutes.verifySecondFactor(active.sessionId),
                VerifyPinRequest(
                    deviceId: phone.deviceId, accountId: accountID, accountSignature: Base64URL.encode(accountKey.sign(message)),
                    biometricSignature: Base64URL.encode(biometricKey.sign(message)),
                    clearPinFailures: !phone.disallowPinChangeWithBiometric, userInput: userInput), from: phone.id)
        } catch  where error.code == "BIOMETRICS_NOT_REGISTERED" {
            return try await biometricsRemoved(phone, phoneId: phoneId)
        }
        if response.result == .accepted {
            try await device.store.countBiometricUse(phoneId: phone.id)
        }
        return try await afterVerification(response, then: then, phone: phone, accounts: accounts, accountID: accountID, phoneId: phoneId)
    }

    /// The Nevis PIN change: the old PIN proven, then the new one registered, in one user input.
    func changePinAtServer(_ step: FlowStep, from oldPin: GuardedBytes, to pin: GuardedBytes, accountID: String) async throws(PhoneError)
        -> FlowAction
    {
        let (phone, accounts, active) = (step.phone, step.accounts, step.active)
        let phoneId = step.phone.id
        let proof = try await provePin(oldPin, phone: phone, accounts: accounts, accountID: accountID, active: active)
        guard proof.result == .accepted, let next = proof.challenge else { return secondFactorChecked(proof, phoneId: phoneId) }
        var verified = active
        verified.challenge = next
        return secondFactorChecked(
            try await registerNewPin(
                pin, phone: phone, accounts: accounts, accountID: accountID,
                active: verified), phoneId: phoneId)
    }

    /// ADD_BIOMETRICS: a new biometric key, registered now or (legacyBioAddFlow) after the PIN.
    func createBiometricKey(_ step: FlowStep, accountID: String, then: FlowAction.Completion?) async throws(PhoneError) -> FlowAction {
        let (phone, accounts, active) = (step.phone, step.accounts, step.active)
        let phoneId = step.phone.id
        let key = try SDKKeys.newKeyPair()
        let secret = Data(key.exportSecretKey())
        if then == .registerBiometricKey {
            _ = try await registerBiometricKey(secret, phone: phone, accounts: accounts, accountID: accountID, active: active)
        } else {
            _ = applyOutcome(phoneId) {
                $0.pendingBiometricKey = secret
                return .none
            }
        }
        return applyOutcome(phoneId) { $0.machine.biometricKeyCreated() }
    }

    /// The PIN's proof for the session's current challenge; an accepted PIN restarts the
    /// PIN-less counts (docs/behaviour.md#biometrics).
    func provePin(
        _ pin: GuardedBytes, phone: PhoneRecord, accounts: [AccountRecord], accountID: String,
        active: ActiveFlow, userInput: String? = nil
    ) async throws(PhoneError) -> SecondFactorResponse {
        guard let salt = phone.pinSalt else { throw PhoneError(.conflict, "PIN_NOT_ENROLLED", "this phone has no PIN") }
        let accountKey = try SDKKeys.accountKey(accounts, accountID)
        let pinKey = try await device.pinPad.deriveKey(pin, salt: Array(salt), phoneId: phone.id)
        let message = SignedMessage.verifySecondFactor(sessionId: active.sessionId, challenge: active.challenge, accountId: accountID)
        let response: SecondFactorResponse = try await device.network.post(
            active.serverURL, BackendRoutes.verifySecondFactor(active.sessionId),
            VerifyPinRequest(
                deviceId: phone.deviceId, accountId: accountID, accountSignature: Base64URL.encode(accountKey.sign(message)),
                pinSignature: Base64URL.encode(pinKey.sign(message)), userInput: userInput), from: phone.id)
        if response.result == .accepted {
            try await device.store.pinAccepted(phoneId: phone.id, at: device.now(), pinPublicKey: Data(pinKey.publicKey))
        }
        return response
    }

    /// After an accepted factor, the change a management flow makes; then the machine hears the outcome.
    func afterVerification(
        _ response: SecondFactorResponse, then: FlowAction.Completion?, phone: PhoneRecord,
        accounts: [AccountRecord], accountID: String, phoneId: String
    ) async throws(PhoneError) -> FlowAction {
        guard response.result == .accepted, let then else { return secondFactorChecked(response, phoneId: phoneId) }
        switch then {
        case .registerBiometricKey:
            guard let active = phones[phoneId]?.flow, let secret = active.pendingBiometricKey, let next = response.challenge else {
                throw .serverResponse("no biometric key to register")
            }
            var verified = active
            verified.challenge = next
            return secondFactorChecked(
                try await registerBiometricKey(
                    secret, phone: phone, accounts: accounts, accountID: accountID,
                    active: verified), phoneId: phoneId)
        case .removeBiometricKey:
            try await device.store.dropBiometricKey(phoneId: phone.id)
            await device.announce(phone.id)
            return secondFactorChecked(response, phoneId: phoneId)
        }
    }

    /// BIOMETRICS_REMOVED (docs/behaviour.md#biometrics): the key no longer fits the enrolled features, so it is
    /// dropped (biometrics are off) and the flow asks again.
    func biometricsRemoved(_ phone: PhoneRecord, phoneId: String) async throws(PhoneError) -> FlowAction {
        try await device.store.dropBiometricKey(phoneId: phone.id)
        await device.announce(phone.id)
        return applyOutcome(phoneId) { $0.machine.biometricsRemoved() }
    }

    /// A new PIN key (with a new salt) registered at the Second Factor Server, then kept.
    func registerNewPin(
        _ pin: GuardedBytes, phone: PhoneRecord, accounts: [AccountRecord], accountID: String,
        active: ActiveFlow
    ) async throws(PhoneError) -> SecondFactorResponse {
        let salt = try Device.random(PinKeyDerivation.saltLength)
        let pinKey = try await device.pinPad.deriveKey(pin, salt: salt, phoneId: phone.id)
        let response = try await setSecondFactor("pin", pinKey, phone: phone, accounts: accounts, accountID: accountID, active: active)
        try await device.store.setPinSalt(phoneId: phone.id, Data(salt))
        try await device.store.pinAccepted(phoneId: phone.id, at: device.now(), pinPublicKey: Data(pinKey.publicKey))
        return response
    }

    /// The biometric key registered at the Second Factor Server, then kept, bound to the
    /// features enrolled now.
    func registerBiometricKey(
        _ secret: Data, phone: PhoneRecord, accounts: [AccountRecord], accountID: String,
        active: ActiveFlow
    ) async throws(PhoneError) -> SecondFactorResponse {
        let response = try await setSecondFactor(
            "biometrics", try SDKKeys.keyPair(secret), phone: phone, accounts: accounts,
            accountID: accountID, active: active)
        try await device.store.keepBiometricKey(phoneId: phone.id, secret, featureSetVersion: phone.featureSetVersion)
        await device.announce(phone.id)
        return response
    }

    func setSecondFactor(
        _ factor: String, _ key: Ed25519.KeyPair, phone: PhoneRecord, accounts: [AccountRecord],
        accountID: String, active: ActiveFlow
    ) async throws(PhoneError) -> SecondFactorResponse {
        let accountKey = try SDKKeys.accountKey(accounts, accountID)
        let publicKey = Base64URL.encode(key.publicKey)
        let message = SignedMessage.setSecondFactor(
            sessionId: active.sessionId, challenge: active.challenge, factor: factor,
            publicKey: publicKey)
        return try await device.network.post(
            active.serverURL, BackendRoutes.setSecondFactor(active.sessionId),
            SetSecondFactorRequest(
                deviceId: phone.deviceId, accountId: accountID, factor: factor, publicKey: publicKey,
                accountSignature: Base64URL.encode(accountKey.sign(message)), factorSignature: Base64URL.encode(key.sign(message))), from: phone.id)
    }

    func secondFactorChecked(_ response: SecondFactorResponse, phoneId: String) -> FlowAction {
        applyOutcome(phoneId) {
            if let next = response.challenge { $0.challenge = next }
            let account = SecondFactorAccount(response.secondFactor)
            let outcome: SecondFactorOutcome =
                switch response.result {
                case .accepted: .accepted(account)
                case .rejected: .rejected(account)
                case .penalised: .penalised(account)
                }
            return $0.machine.secondFactorChecked(outcome)
        }
    }
}
