import AuthFlow
import BackendAPI
import Foundation
import OTP
import OutOfBand
import SodiumKit

/// The seeds' authentication SDK as an app on the phone (docs/behaviour.md): enrolment, login and
/// transaction flows from out-of-band payloads, second factors and their management, the offline
/// OTP and the session start. Each phone's state is one `SDKPhone`; each flow is a `FlowMachine`,
/// whose actions this actor carries out as exchanges with the phone's backend.
public actor SDKApp: PhoneApp {
    let device: Device
    let configuration: PhoneService.Configuration
    var phones: [String: SDKPhone] = [:]

    init(device: Device, configuration: PhoneService.Configuration) {
        self.device = device
        self.configuration = configuration
    }

    func show(_ phoneId: String, on detail: PhoneDetail) -> PhoneDetail {
        var detail = detail
        detail.flow = phones[phoneId]?.flow?.machine.flow
        detail.session = phones[phoneId]?.sessionStart?.session
        return detail
    }

    func forget(_ phoneId: String) {
        phones.removeValue(forKey: phoneId)?.sessionStart?.retry?.cancel()
    }

    func forgetAll() {
        for id in phones.keys { forget(id) }
    }

    /// Local data changes wait until the flow that may be using them has ended.
    func refuseDuringFlow(_ phoneId: String) throws(PhoneError) {
        if let active = phones[phoneId]?.flow, !active.machine.flow.state.isFinal { throw .flowActive }
        // a scanned session still starting becomes a flow as soon as its backend answers
        if phones[phoneId]?.sessionStart?.session.state == .starting { throw .flowActive }
    }

    public func currentFlow(phoneId: String) -> Flow? { phones[phoneId]?.flow?.machine.flow }

    // MARK: carrying out the machine's actions

    /// Publishes the flow and carries out the machine's actions until it waits for the user or
    /// ends. A flow that ends by abandoning its session tells the backend first, so that when
    /// the screen shows the end, both sides have ended. `read` is the phone as the caller read
    /// it with nothing awaited since, which the first action uses instead of reading it again;
    /// each later action reads the phone as it is then.
    func run(
        _ first: FlowAction, phoneId: String, pin: GuardedBytes? = nil, oldPin: GuardedBytes? = nil,
        read: (PhoneRecord, [AccountRecord])? = nil
    ) async {
        var action = first
        var read = read
        while true {
            guard let active = phones[phoneId]?.flow else { return }
            if case .abandonSession = action {
                _ = try? await perform(action, active, phoneId: phoneId, pin: pin, oldPin: oldPin, read: read)
                publish(phoneId)
                return
            }
            publish(phoneId)
            if action == .none {
                await answerAutomatically(phoneId)
                return
            }
            do {
                action = try await perform(action, active, phoneId: phoneId, pin: pin, oldPin: oldPin, read: read)
            } catch {
                action = applyOutcome(phoneId) { $0.machine.failed(error.flowError) }
            }
            read = nil
        }
    }

    /// Carries out one action of the machine, each an exchange with the backend, and returns
    /// the machine's next.
    private func perform(
        _ action: FlowAction, _ active: ActiveFlow, phoneId: String,
        pin: GuardedBytes?, oldPin: GuardedBytes?, read: (PhoneRecord, [AccountRecord])?
    ) async throws(PhoneError) -> FlowAction {
        let (phone, accounts) = if let read { read } else { try await device.phoneAndAccounts(phoneId) }
        let step = FlowStep(phone: phone, accounts: accounts, active: active)
        switch action {
        case .none:
            return .none
        case .confirmSession(let accountID, let userInput):
            return try await confirmAtServer(step, accountID: accountID, userInput: userInput)
        case .confirmTransaction(let accountID):
            return try await signTransactionAtServer(step, accountID: accountID)
        case .completeEnrolment(let use, let withBiometrics, let userInput):
            guard let pin else { return pinMissing(phoneId) }
            return try await enrolAtServer(step, pin: pin, use: use, withBiometrics: withBiometrics, userInput: userInput)
        case .verifySecondFactor(let accountID, .pin, let then, let userInput):
            guard let pin else { return pinMissing(phoneId) }
            return try await verifyPinAtServer(step, pin, accountID: accountID, then: then, userInput: userInput)
        case .verifySecondFactor(let accountID, .biometrics, let then, let userInput):
            return try await verifyBiometricsAtServer(step, accountID: accountID, then: then, userInput: userInput)
        case .setPin(let accountID):
            guard let pin else { return pinMissing(phoneId) }
            return secondFactorChecked(
                try await registerNewPin(
                    pin, phone: phone, accounts: accounts, accountID: accountID,
                    active: active), phoneId: phoneId)
        case .changePin(let accountID):
            guard let pin, let oldPin else { return pinMissing(phoneId) }
            return try await changePinAtServer(step, from: oldPin, to: pin, accountID: accountID)
        case .createBiometricKey(let accountID, let then):
            return try await createBiometricKey(step, accountID: accountID, then: then)
        case .rotateAccountKey(let accountID):
            return try await rotateAccountKeyAtServer(step, accountID: accountID)
        case .abandonSession(let error):
            // Best effort: the flow has ended on the phone whether or not the backend hears it.
            try? await abandon(active.sessionId, at: active.serverURL, code: error.code, phone: phone)
            return .none
        }
    }

    /// What one action works with: the phone and its accounts as they are now, and its flow.
    struct FlowStep: Sendable {
        let phone: PhoneRecord
        let accounts: [AccountRecord]
        let active: ActiveFlow
    }

    /// An action that needs a PIN the input did not carry ends the flow.
    private func pinMissing(_ phoneId: String) -> FlowAction {
        applyOutcome(phoneId) { $0.machine.failed(.init(code: "PIN_MISSING", message: "the PIN (and for a change the old one) was not given")) }
    }

    // MARK: helpers

    /// Applies a user event to the phone's flow; a refused event changes nothing. `run` publishes.
    func applyUserEvent(
        _ phoneId: String,
        _ event: (inout FlowMachine) throws(FlowInputError) -> FlowAction
    ) throws(PhoneError) -> FlowAction {
        guard var active = phones[phoneId]?.flow, !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        let action: FlowAction
        do { action = try event(&active.machine) } catch { throw PhoneError(.conflict, error.code, error.message) }
        phones[phoneId, default: SDKPhone()].flow = active
        return action
    }

    /// Applies an outcome to the phone's flow; `run` publishes it.
    func applyOutcome(_ phoneId: String, _ body: (inout ActiveFlow) -> FlowAction) -> FlowAction {
        guard var active = phones[phoneId]?.flow else { return .none }
        let action = body(&active)
        phones[phoneId, default: SDKPhone()].flow = active
        return action
    }

    /// A flow update that follows a rule's answer says which rule gave it.
    func publish(_ phoneId: String) {
        guard var flow = phones[phoneId]?.flow?.machine.flow else { return }
        flow.automatic = WireExchange.answeringRule.map(AutomaticAnswer.init)
        configuration.flowObserver(phoneId, flow)
        device.screen.send(.flowUpdate(flow), to: phoneId)
    }

    /// A payload may make the phone POST to a backend's redeem route and nowhere else: another
    /// route of an allowed server (another phone's token rotation, say) is refused like a foreign
    /// server, before any connection. The redeem answer decides the rest.
    func checkRedeemURL(_ url: URL) throws(PhoneError) {
        try device.checkAllowed(url)
        let exact = device.allowedBackends().compactMap { base in
            URL(string: (base.hasSuffix("/") ? String(base.dropLast()) : base) + BackendRoutes.redeem)
        }
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath
        guard url.query == nil, url.fragment == nil, url.user == nil, url.password == nil,
            exact.contains(where: { origin(of: $0) == origin(of: url) && $0.path == path })
        else {
            throw PhoneError(
                .forbidden, "REDEEM_URL_NOT_ALLOWED",
                "a payload's redeem_url must be the backend's redeem route \(BackendRoutes.redeem), not \(path ?? url.absoluteString)",
                sdkCode: 52)
        }
    }
}
