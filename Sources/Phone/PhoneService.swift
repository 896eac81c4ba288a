import AsyncHTTPClient
import AuthFlow
import BackendAPI
import BlockingWork
import Broadcast
import Faults
import Foundation
import NIOCore
import OTP
import OutOfBand
import Retry
import SodiumKit
import Synchronization

/// The simulated authentication SDK for every phone of this server: local data, the one active
/// flow per phone, and the phone's side of the protocol with its backend (over HTTP).
/// State lives in this actor; key derivation and HTTP run outside it so one slow phone does
/// not hold up the others.
public actor PhoneService {
    public struct Configuration: Sendable {
        /// Origins (`scheme://host:port`) a phone may talk to; checked before any connection.
        public var allowedBackends: @Sendable () -> [String]
        public var pinDerivation: PinKeyDerivation
        public var pinPolicy: PinPolicy
        public var requestTimeout: TimeAmount
        /// The `Authorization` header for a backend URL (this server's access key, to itself only).
        public var authorization: @Sendable (String) -> String?
        /// Hears each exchange with a backend once, for the timeline.
        public var observe: WireExchange.Observer?
        /// The retry policy of a DeviceInformationChange the phone makes by itself (a refreshed
        /// FCM token), and of one a caller gives none for.
        public var deviceChangeRetry: RetryPolicy
        /// How the phone keeps trying a backend it could not reach to fetch a scanned session.
        public var sessionFetchRetry: RetryPolicy
        /// Waits between retries and their jitter: test doubles run a schedule without sleeping.
        public var sleep: @Sendable (Duration) async throws -> Void
        public var random: @Sendable () -> Double
        /// Sees every flow the phones publish (the server's metrics and logs count starts and ends).
        public var flowObserver: @Sendable (_ phoneId: String, Flow) -> Void = { _, _ in }
        /// Hears each retry the phones plan (`deviceInformation`, `sessionFetch`), for the metrics.
        public var retryObserver: @Sendable (_ operation: String) -> Void = { _ in }
        /// Where PINs' keys are derived: Argon2id holds a thread for tens of milliseconds, which
        /// must not be one that answers requests. Nil: on the caller's thread (a phone of its own,
        /// in tests).
        public var pinLane: WorkLane?
        /// Where privacyIDEA tokens' RSA keys are made: a 4096-bit key holds a core for up to a
        /// second. Nil: on the caller's thread (a phone of its own, in tests).
        public var keyLane: WorkLane?

        public static let defaultDeviceChangeRetry = RetryPolicy.exponential(
            maxRetries: 3, initialDelay: .seconds(1), maximumDelay: .seconds(8), multiplier: 2)
        public static let defaultSessionFetchRetry = RetryPolicy.exponential(
            maxRetries: 8, initialDelay: .seconds(1), maximumDelay: .seconds(30), multiplier: 2)

        public init(
            allowedBackends: @escaping @Sendable () -> [String], pinDerivation: PinKeyDerivation = .init(profile: .interactive),
            pinPolicy: PinPolicy = .default, requestTimeout: TimeAmount = .seconds(10),
            authorization: @escaping @Sendable (String) -> String? = { _ in nil }, observe: WireExchange.Observer? = nil,
            deviceChangeRetry: RetryPolicy = defaultDeviceChangeRetry,
            sessionFetchRetry: RetryPolicy = defaultSessionFetchRetry,
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
        ) {
            self.allowedBackends = allowedBackends
            self.pinDerivation = pinDerivation
            self.pinPolicy = pinPolicy
            self.requestTimeout = requestTimeout
            self.authorization = authorization
            self.observe = observe
            self.deviceChangeRetry = deviceChangeRetry
            self.sessionFetchRetry = sessionFetchRetry
            self.sleep = sleep
            self.random = random
        }
    }

    /// A flow together with what the phone knows of its session.
    struct ActiveFlow: Sendable {
        var machine: FlowMachine
        var sessionId: String
        var serverURL: String
        var server: WireServer
        var challenge: String
        /// ADD_BIOMETRICS with `legacyBioAddFlow`: the key made at SET, registered after the PIN.
        var pendingBiometricKey: Data?
        /// The auto-answer rule that answered this flow so far: it answers the later steps too.
        var answeringRule: AutoAnswerRule?
    }

    let store: PhoneStore
    let configuration: Configuration
    /// The phone's way to its backends.
    let network: any BackendClient
    let now: @Sendable () -> Date
    /// FlowUpdates and local-data changes, per phone id.
    public nonisolated let events = KeyedBroadcaster<String, PhoneEvent>()
    var flows: [String: ActiveFlow] = [:]
    /// The PIN pad the phone's apps share.
    let pinPad: PinPad
    /// Each phone's last scanned session before its flow (docs/behaviour.md#offline-otp), with its OTP offer.
    var sessionStarts: [String: StartingSession] = [:]
    /// The retried operation each phone is running (one at a time), to cancel it.
    var operations: [String: Task<Result<DeviceChangeResult, PhoneError>, Never>] = [:]
    /// How each running operation stands.
    var progresses: [String: OperationProgress] = [:]
    /// Phones whose out-of-band payload is being redeemed: a second one must wait its turn.
    var starting: Set<String> = []
    /// Each phone's auto-answer rules, over any of its apps.
    let automation = Automation()
    /// privacyIDEA's authenticator app on each phone.
    public nonisolated let privacyIDEA: PrivacyIDEAApp

    /// Phones that reach their backends through `network` (a test passes a double).
    public init(
        store: PhoneStore, configuration: Configuration, network: any BackendClient, privacyIDEAWire: WireHTTPClient = WireHTTPClient(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.configuration = configuration
        self.network = network
        self.now = now
        pinPad = PinPad(derivation: configuration.pinDerivation, lane: configuration.pinLane)
        let device = Device(store: store, screen: events, pinPad: pinPad, automation: automation, now: now)
        privacyIDEA = PrivacyIDEAApp(
            device: device,
            exchanges: PrivacyIDEAExchanges(
                wire: privacyIDEAWire, retry: configuration.deviceChangeRetry, sleep: configuration.sleep, random: configuration.random,
                retryObserver: configuration.retryObserver, keyLane: configuration.keyLane))
    }

    /// Phones that reach their backends over HTTP, through any fault set for them.
    public init(
        store: PhoneStore, configuration: Configuration, http: HTTPClient = WireHTTPClient.noRedirects,
        now: @escaping @Sendable () -> Date = Date.init, faults: FaultInjector? = nil
    ) {
        let wire = WireHTTPClient(
            http: http, timeout: configuration.requestTimeout, authorization: configuration.authorization, observe: configuration.observe)
        let network = HTTPBackendClient(
            wire: wire, faults: faults, timeout: .seconds(Int64(configuration.requestTimeout.nanoseconds / 1_000_000_000)),
            sleep: configuration.sleep)
        self.init(store: store, configuration: configuration, network: network, privacyIDEAWire: wire, now: now)
    }

    public func currentFlow(phoneId: String) -> Flow? { flows[phoneId]?.machine.flow }

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
            guard let active = flows[phoneId] else { return }
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
        let (phone, accounts) = if let read { read } else { try await phoneAndAccounts(phoneId) }
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
        guard var active = flows[phoneId], !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        let action: FlowAction
        do { action = try event(&active.machine) } catch { throw PhoneError(.conflict, error.code, error.message) }
        flows[phoneId] = active
        return action
    }

    /// Applies an outcome to the phone's flow; `run` publishes it.
    func applyOutcome(_ phoneId: String, _ body: (inout ActiveFlow) -> FlowAction) -> FlowAction {
        guard var active = flows[phoneId] else { return .none }
        let action = body(&active)
        flows[phoneId] = active
        return action
    }

    /// A flow update that follows a rule's answer says which rule gave it.
    func publish(_ phoneId: String) {
        guard var flow = flows[phoneId]?.machine.flow else { return }
        flow.automatic = WireExchange.answeringRule.map(AutomaticAnswer.init)
        configuration.flowObserver(phoneId, flow)
        events.send(.flowUpdate(flow), to: phoneId)
    }

    /// A payload may make the phone POST to a backend's redeem route and nowhere else: another
    /// route of an allowed server (another phone's token rotation, say) is refused like a foreign
    /// server, before any connection. The redeem answer decides the rest.
    func checkRedeemURL(_ url: URL) throws(PhoneError) {
        try checkAllowed(url)
        let exact = configuration.allowedBackends().compactMap { base in
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

    func checkAllowed(_ url: URL?) throws(PhoneError) {
        guard let url, let target = origin(of: url) else { throw .serverNotAllowed(url?.absoluteString ?? "(no URL)") }
        let allowed = configuration.allowedBackends().compactMap { URL(string: $0).flatMap(origin(of:)) }
        guard allowed.contains(target) else { throw .serverNotAllowed(target) }
    }

    static func accountKey(_ accounts: [AccountRecord], _ id: String) throws(PhoneError) -> Ed25519.KeyPair {
        guard let account = accounts.first(where: { $0.id == id }) else {
            throw PhoneError(.notFound, "ACCOUNT_NOT_FOUND", "this phone has no account \(id)")
        }
        return try keyPair(account.secretKey)
    }

    static func keyPair(_ secret: Data) throws(PhoneError) -> Ed25519.KeyPair {
        do { return try Ed25519.KeyPair(secretKey: Array(secret)) } catch { throw .crypto(error.description) }
    }

    static func newKeyPair() throws(PhoneError) -> Ed25519.KeyPair {
        do { return try .generate() } catch { throw .crypto(error.description) }
    }

    static func newOTPKeyPair() throws(PhoneError) -> KeyExchange.KeyPair {
        do { return try .generate() } catch { throw .crypto(error.description) }
    }

    /// The offline OTP key (docs/behaviour.md#offline-otp) from the backend's half, once the server key the phone
    /// pins vouches for that half and the account's reference.
    static func otpKey(
        _ answer: WireOTPEnrolment, keyPair: KeyExchange.KeyPair, phonePublicKey: String, sessionId: String,
        accountId: String, server: WireServer
    ) throws(PhoneError) -> (reference: UInt32, key: [UInt8]) {
        let message = SignedMessage.otpEnrolment(
            sessionId: sessionId, accountId: accountId, reference: answer.reference,
            serverPublicKey: answer.serverPublicKey, phonePublicKey: phonePublicKey)
        guard answer.reference < OfflineOTP.referenceCount, let serverKey = Base64URL.decode(server.publicKey),
            let signature = Base64URL.decode(answer.signature), let backendHalf = Base64URL.decode(answer.serverPublicKey),
            Ed25519.verify(signature: signature, message: message, publicKey: serverKey)
        else { throw .serverAuthentication("the offline OTP key is not signed by the server's key") }
        do { return (answer.reference, try keyPair.clientSharedKey(serverPublicKey: backendHalf)) } catch {
            throw .serverResponse("the server's offline OTP key cannot be used: \(error.description)")
        }
    }

    static func secondFactorAccount(_ wire: WireSecondFactorAccount) -> SecondFactorAccount {
        SecondFactorAccount(
            isBlocked: wire.isBlocked, failedAttempts: wire.failedAttempts, maxAttempts: wire.maxAttempts,
            penalisedFor: wire.penalisedFor, penalisedUntil: wire.penalisedUntil)
    }

    static func random(_ count: Int) throws(PhoneError) -> [UInt8] {
        do { return try Sodium.randomBytes(count) } catch { throw .crypto(error.description) }
    }

    /// Shaped like an FCM registration token: a new Firebase installation id, `:APA91b`, and a
    /// long random tail.
    static func makeFCMToken() throws(PhoneError) -> String {
        "\(FirebaseInstallationID.make(randomBytes: try random(16))):APA91b\(Base64URL.encode(try random(100)))"
    }

    func phoneAndAccounts(_ id: String) async throws(PhoneError) -> (PhoneRecord, [AccountRecord]) {
        guard let found = try await store.phoneAndAccounts(id) else { throw .phoneNotFound(id) }
        return found
    }
}
