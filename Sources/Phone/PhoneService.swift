import AsyncHTTPClient
import AuthFlow
import BackendAPI
import Broadcast
import Foundation
import GRDB
import NIOCore
import OTP
import OutOfBand
import Retry
import Faults
import SodiumKit

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
        /// The retry policy of a DeviceInformationChange the phone makes by itself (a refreshed
        /// FCM token), and of one a caller gives none for.
        public var deviceChangeRetry: RetryPolicy
        /// How the phone keeps trying a backend it could not reach to fetch a scanned session.
        public var sessionFetchRetry: RetryPolicy
        /// Waits between retries and their jitter: test doubles run a schedule without sleeping.
        public var sleep: @Sendable (Duration) async throws -> Void
        public var random: @Sendable () -> Double

        public static let defaultDeviceChangeRetry = RetryPolicy.exponential(
            maxRetries: 3, initialDelay: .seconds(1), maximumDelay: .seconds(8), multiplier: 2)
        public static let defaultSessionFetchRetry = RetryPolicy.exponential(
            maxRetries: 8, initialDelay: .seconds(1), maximumDelay: .seconds(30), multiplier: 2)

        public init(allowedBackends: @escaping @Sendable () -> [String], pinDerivation: PinKeyDerivation = .init(profile: .interactive),
                    pinPolicy: PinPolicy = .default, requestTimeout: TimeAmount = .seconds(10),
                    authorization: @escaping @Sendable (String) -> String? = { _ in nil },
                    deviceChangeRetry: RetryPolicy = defaultDeviceChangeRetry,
                    sessionFetchRetry: RetryPolicy = defaultSessionFetchRetry,
                    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
            self.allowedBackends = allowedBackends
            self.pinDerivation = pinDerivation
            self.pinPolicy = pinPolicy
            self.requestTimeout = requestTimeout
            self.authorization = authorization
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
    }

    let database: PhoneDatabase
    let configuration: Configuration
    let network: BackendClient
    let now: @Sendable () -> Date
    /// FlowUpdates and local-data changes, per phone id.
    public nonisolated let events = KeyedBroadcaster<String, PhoneEvent>()
    var flows: [String: ActiveFlow] = [:]
    /// Each phone's last scanned session before its flow (seed 004), with its OTP offer.
    var sessionStarts: [String: StartingSession] = [:]
    /// The retried operation each phone is running (one at a time), to cancel it.
    var operations: [String: Task<Result<DeviceChangeResult, PhoneError>, Never>] = [:]
    /// How each running operation stands.
    var progresses: [String: OperationProgress] = [:]
    /// Phones whose out-of-band payload is being redeemed: a second one must wait its turn.
    var starting: Set<String> = []

    public init(database: PhoneDatabase, configuration: Configuration, http: HTTPClient = WireHTTPClient.noRedirects,
                now: @escaping @Sendable () -> Date = Date.init, faults: FaultInjector? = nil) {
        self.database = database
        self.configuration = configuration
        network = BackendClient(wire: WireHTTPClient(http: http, timeout: configuration.requestTimeout,
                                                               authorization: configuration.authorization), faults: faults,
                                timeout: .seconds(Int64(configuration.requestTimeout.nanoseconds / 1_000_000_000)),
                                sleep: configuration.sleep)
        self.now = now
    }

    /// The phone's way to its backends, through any fault set for it.
    nonisolated func client(_ phoneId: String) -> BackendClient { network.forPhone(phoneId) }

    // MARK: local data

    public func createPhone(name: String) async throws(PhoneError) -> PhoneSummary {
        let name = name.trimmingCharacters(in: .whitespaces)
        if let problem = ReadableText.nameProblem(in: name, limit: 64) { throw .invalid("name", problem) }
        let record = PhoneRecord(id: UUID().uuidString.lowercased(), name: name, deviceId: UUID().uuidString,
                                 fcmToken: try Self.makeFCMToken(), pinLength: configuration.pinPolicy.length,
                                 pinSalt: nil, createdAt: now(), openPushesAtOnce: false,
                                 deviceKeySeed: Data(try Self.random(Ed25519.seedLength)))
        try await write { db in try record.insert(db) }
        return record.summary
    }

    public func phones() async throws(PhoneError) -> [PhoneSummary] {
        try await read { db in try PhoneRecord.order(PhoneRecord.Columns.createdAt).fetchAll(db) }.map(\.summary)
    }

    public func phone(id: String) async throws(PhoneError) -> PhoneDetail {
        let (phone, accounts) = try await phoneAndAccounts(id)
        return PhoneDetail(id: phone.id, name: phone.name, deviceId: phone.deviceId, fcmToken: phone.fcmToken,
                           createdAt: phone.createdAt, hasPin: phone.pinSalt != nil, pinLength: phone.pinLength,
                           accounts: accounts.map(\.summary), settings: phone.settings, biometrics: phone.biometrics, pushNotifications: !phone.pushNotificationsDisabled,
                           flow: flows[id]?.machine.flow, session: sessionStarts[id]?.session)
    }

    /// The phone that holds a push registration token, if any.
    public func phone(fcmToken: String) async throws(PhoneError) -> PhoneDetail? {
        guard let id = try await read({ db in try PhoneRecord.filter(PhoneRecord.Columns.fcmToken == fcmToken).fetchOne(db)?.id }) else {
            return nil
        }
        return try await phone(id: id)
    }

    public func update(phoneId: String, settings: PhoneSettingsChange) async throws(PhoneError) -> PhoneDetail {
        try await change(phoneId) { phone throws(PhoneError) in try phone.apply(settings) }
    }

    /// The simulated sensor: another fingerprint or face enrolled in the OS. As on a real phone,
    /// this invalidates the biometric key; the SDK finds out at its next use.
    public func enrolBiometricFeature(phoneId: String) async throws(PhoneError) -> PhoneDetail {
        try await change(phoneId) { phone throws(PhoneError) in
            guard phone.biometricSensor else { throw .biometricsUnavailable("this phone has no biometric sensor") }
            guard phone.enrolledFeatures < 10 else { throw PhoneError(.conflict, "TOO_MANY_FEATURES", "the sensor holds at most 10 features") }
            phone.enrolledFeatures += 1
            phone.featureSetVersion += 1
        }
    }

    /// Every enrolled feature removed from the OS: no biometric can match any more.
    public func removeBiometricFeatures(phoneId: String) async throws(PhoneError) -> PhoneDetail {
        try await change(phoneId) { phone throws(PhoneError) in
            phone.enrolledFeatures = 0
            phone.featureSetVersion += 1
        }
    }

    /// Seed 000's last resort: remove all accounts, which resets the SDK: no PIN, no biometric
    /// key, and a new device identity (the server's counters for the old one stay behind).
    /// The accounts stay on their servers.
    public func removeAllAccounts(phoneId: String) async throws(PhoneError) -> PhoneDetail {
        try refuseDuringFlow(phoneId)
        let seed = Data(try Self.random(Ed25519.seedLength))
        return try await change(phoneId) { phone throws(PhoneError) in
            phone.deviceId = UUID().uuidString
            phone.deviceKeySeed = seed
            phone.pinSalt = nil
            phone.biometricSecretKey = nil
            phone.biometricKeySetVersion = nil
            phone.biometricUsesSinceLastPin = 0
            phone.lastPinAt = nil
        } also: { db, phone in
            _ = try AccountRecord.filter(AccountRecord.Columns.phoneId == phone.id).deleteAll(db)
        }
    }

    /// Local data changes wait until the flow that may be using them has ended.
    func refuseDuringFlow(_ phoneId: String) throws(PhoneError) {
        if let active = flows[phoneId], !active.machine.flow.state.isFinal { throw .flowActive }
        // a scanned session still starting becomes a flow as soon as its backend answers
        if sessionStarts[phoneId]?.session.state == .starting { throw .flowActive }
    }

    /// Changes the phone's record (and, in the same transaction, anything else) and tells its screen.
    func change(_ phoneId: String, _ body: (inout PhoneRecord) throws(PhoneError) -> Void,
                        also: (@Sendable (Database, PhoneRecord) throws -> Void)? = nil) async throws(PhoneError) -> PhoneDetail {
        var (phone, _) = try await phoneAndAccounts(phoneId)
        try body(&phone)
        let updated = phone
        try await write { db in
            try updated.update(db)
            try also?(db, updated)
        }
        let detail = try await self.phone(id: phoneId)
        events.send(.phoneChanged(detail), to: phoneId)
        return detail
    }

    public func currentFlow(phoneId: String) -> Flow? { flows[phoneId]?.machine.flow }

    // MARK: starting a flow

    /// Redeems a decoded payload at its backend and starts the flow it names. Until the
    /// session arrives it is STARTING (seed 004): an offline OTP is on offer, and a backend that
    /// cannot be reached is tried again in the background (the caller hears error 70 at once).
    public func startOutOfBand(phoneId: String, payload: OutOfBandPayload) async throws(PhoneError) -> Flow {
        let local = try await phoneAndAccounts(phoneId)
        try refuseDuringFlow(phoneId)
        guard !starting.contains(phoneId) else { throw .flowActive }
        try checkRedeemURL(payload.redeemData.redeemURL)
        starting.insert(phoneId)
        defer { starting.remove(phoneId) }
        announceSessionStart(phoneId, payload: payload, accounts: local.1, countdown: local.0.otpCountdown)
        return try await fetchSessionAndStartFlow(phoneId, payload: payload, local: local)
    }

    /// A redeemed session the phone has checked, ready to become a flow.
    struct PreparedFlow: Sendable {
        let phone: PhoneRecord
        let accounts: [AccountRecord]
        let response: RedeemResponse
        let info: SessionInfo
    }

    /// Redeems the token and checks what came back: the server's signature with the key the
    /// phone pinned, and a type a server may start. `local` is the phone and its accounts as
    /// read by the caller (they cannot change while the session starts).
    func redeemAndCheck(_ phoneId: String, payload: OutOfBandPayload,
                        local: (PhoneRecord, [AccountRecord])) async throws(PhoneError) -> PreparedFlow {
        let (phone, onPhone) = local
        let deviceKey = try phone.deviceKey()
        let devicePublicKey = Base64URL.encode(deviceKey.publicKey)
        let session: RedeemResponse = try await client(phoneId).post(
            payload.redeemData.redeemURL.absoluteString, "", RedeemRequest(
                token: payload.redeemData.token, deviceId: phone.deviceId, devicePublicKey: devicePublicKey,
                deviceSignature: Base64URL.encode(deviceKey.sign(SignedMessage.redeem(
                    token: payload.redeemData.token, deviceId: phone.deviceId, devicePublicKey: devicePublicKey)))))
        guard let serverURL = URL(string: session.server.url) else { throw .serverResponse("the server URL is not a URL") }
        try checkAllowed(serverURL)
        guard let serverKey = Base64URL.decode(session.server.publicKey),
              let signature = Base64URL.decode(session.serverSignature),
              Ed25519.verify(signature: signature, message: SignedMessage.server(sessionId: session.sessionId, challenge: session.challenge),
                             publicKey: serverKey)
        else { throw .serverAuthentication("the session is not signed by the server's key") }
        // The backend refuses such a text when the session starts; one that arrives anyway is not shown.
        if let text = session.transaction, let problem = ReadableText.problem(in: text, limit: ReadableText.maximumTransactionLength) {
            throw .serverResponse("the transaction text \(problem)")
        }

        // A server is known by the key pinned at enrolment, so it may move (another port, a new
        // host name); the same URL with another key is an impostor or a reset server.
        let accounts = onPhone.filter { Array($0.serverPublicKey) == serverKey }
        if session.type != .enrol, accounts.isEmpty, onPhone.contains(where: { $0.serverURL == session.server.url }) {
            throw .serverAuthentication("the server's key differs from the one pinned at enrolment")
        }
        let moved = accounts.filter { $0.serverURL != session.server.url }.map(\.id)
        if !moved.isEmpty {
            // The server moved (another port or host): remember where it is now.
            try await write { db in
                _ = try AccountRecord.filter(keys: moved).updateAll(db, Column("serverURL").set(to: session.server.url))
            }
        }
        let type: FlowType
        switch session.type {
        case .enrol: type = .enrol
        case .login: type = .login
        case .transaction: type = .signTransaction
        case .upgrade: type = .headlessUpgrade
        case .changePin, .addBiometrics, .removeBiometrics:
            throw .serverResponse("a \(session.type.rawValue) session is started by the phone, not redeemed")
        }
        let info = SessionInfo(
            id: session.sessionId, type: type, expiresAt: session.expiresAt,
            server: ServerInfo(name: session.server.name, url: session.server.url, publicKey: session.server.publicKey,
                               visualHash: .of(session.server)),
            announceInfo: session.announceInfo,
            enrolInfo: session.displayName.map { EnrolInfo(displayName: $0, nsAccounts: session.existingAccounts ?? []) },
            userId: session.userId, preselectedAccountId: session.accountId, transaction: session.transaction)
        return PreparedFlow(phone: phone, accounts: accounts, response: session, info: info)
    }

    /// The session arrived and the phone accepted it: its flow starts.
    func beginFlow(_ phoneId: String, _ prepared: PreparedFlow) async -> Flow {
        let (machine, action) = FlowMachine.start(id: UUID().uuidString.lowercased(), session: prepared.info,
                                                  accounts: prepared.accounts.map(\.summary), phoneHasPin: prepared.phone.pinSalt != nil,
                                                  options: prepared.phone.flowOptions(now: now()))
        let session = prepared.response
        flows[phoneId] = ActiveFlow(machine: machine, sessionId: session.sessionId, serverURL: session.server.url,
                                    server: session.server, challenge: session.challenge)
        await run(action, phoneId: phoneId)
        return flows[phoneId]?.machine.flow ?? machine.flow
    }

    /// The flows the phone starts itself (seed 000's sfChangePIN, sfBiometricsAdd,
    /// sfBiometricsRemove). The device's factors live at the server of its first account.
    public func startManagement(phoneId: String, type: FlowType) async throws(PhoneError) -> Flow {
        let wireType: WireSessionType
        switch type {
        case .changePin: wireType = .changePin
        case .addBiometrics: wireType = .addBiometrics
        case .removeBiometrics: wireType = .removeBiometrics
        default: throw .invalid("type", "must be CHANGE_PIN, ADD_BIOMETRICS or REMOVE_BIOMETRICS; the others start from the server")
        }
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        try refuseDuringFlow(phoneId)
        guard !starting.contains(phoneId) else { throw .flowActive }
        guard phone.pinSalt != nil, let account = accounts.first else {
            throw PhoneError(.conflict, "NOT_ENROLLED", "this phone has no account and no PIN yet; enrol first")
        }
        if type == .addBiometrics {
            guard phone.canEnableBiometrics else {
                throw .biometricsUnavailable("no sensor, no enrolled fingerprint or face, or biometricsDisabled is on")
            }
        }
        if type == .removeBiometrics, !phone.hasEnabledBiometrics {
            throw PhoneError(.conflict, "BIOMETRICS_NOT_ENABLED", "this phone has no biometric second factor to remove")
        }
        try checkAllowed(URL(string: account.serverURL))
        starting.insert(phoneId)
        defer { starting.remove(phoneId) }
        let key = try Self.accountKey(accounts, account.id)
        let time = now()
        let started: ManagementResponse = try await client(phoneId).post(account.serverURL, BackendRoutes.management, ManagementRequest(
            deviceId: phone.deviceId, accountId: account.id, type: wireType, timestamp: time,
            signature: Base64URL.encode(key.sign(SignedMessage.management(accountId: account.id, type: wireType, timestamp: time)))))
        let server = WireServer(name: account.serverName, url: account.serverURL, publicKey: Base64URL.encode(Array(account.serverPublicKey)))
        let info = SessionInfo(id: started.sessionId, type: type, expiresAt: started.expiresAt,
                               server: ServerInfo(name: server.name, url: server.url, publicKey: server.publicKey, visualHash: .of(server)),
                               userId: account.userId, preselectedAccountId: account.id)
        let (machine, action) = FlowMachine.start(id: UUID().uuidString.lowercased(), session: info, accounts: [account.summary],
                                                  phoneHasPin: true, secondFactorAccount: Self.secondFactorAccount(started.secondFactor),
                                                  options: phone.flowOptions(now: time))
        flows[phoneId] = ActiveFlow(machine: machine, sessionId: started.sessionId, serverURL: account.serverURL,
                                    server: server, challenge: started.challenge)
        await run(action, phoneId: phoneId)
        return flows[phoneId]?.machine.flow ?? machine.flow
    }

    /// The pull fallback: asks each backend this phone has accounts at for the operations
    /// waiting for them, newest first. The phone proves each account with its key.
    public func pendingOperations(phoneId: String) async throws(PhoneError) -> [PendingOperation] {
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        var found: [String: PendingOperation] = [:]
        // Accounts at servers the phone may no longer talk to are passed over, not an error.
        for account in accounts where (try? checkAllowed(URL(string: account.serverURL))) != nil {
            let key = try Self.accountKey(accounts, account.id)
            let time = now()
            let answer: PendingResponse = try await client(phoneId).post(account.serverURL, BackendRoutes.pending, PendingRequest(
                deviceId: phone.deviceId, accountId: account.id, timestamp: time,
                signature: Base64URL.encode(key.sign(SignedMessage.pending(accountId: account.id, timestamp: time)))))
            for operation in answer.operations { found[operation.sessionId] = operation }
        }
        return found.values.sorted { $0.createdAt > $1.createdAt }
    }

    // MARK: user input

    public func confirmSession(phoneId: String, accountID: String?, userInput: String? = nil) async throws(PhoneError) {
        if let userInput, !userInput.isEmpty, let problem = ReadableText.problem(in: userInput, limit: ReadableText.maximumUserInputLength) {
            throw .invalid("userInput", problem)
        }
        let action = try mutate(phoneId) { machine throws(FlowInputError) in
            try machine.confirmSession(accountID: accountID, userInput: userInput)
        }
        await run(action, phoneId: phoneId)
    }

    public func confirmTransaction(phoneId: String) async throws(PhoneError) {
        let action = try mutate(phoneId) { machine throws(FlowInputError) in try machine.confirmTransaction() }
        await run(action, phoneId: phoneId)
    }

    /// A PIN; for the Nevis PIN change also the old one. Both are wiped when this returns,
    /// whatever happened. A new PIN that breaks the policy, or equals the old one, is refused
    /// before anything is sent: the flow asks again (seed 003's recoverable errors).
    public func inputPin(phoneId: String, pin: GuardedBytes, oldPin: GuardedBytes? = nil) async throws(PhoneError) {
        defer {
            pin.reset()
            oldPin?.reset()
        }
        guard let active = flows[phoneId], !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        let flow = active.machine.flow
        let nevisChange = flow.type == .changePin && flow.currentInteraction?.type == .setSecondFactor
            && flow.previousInteractionResult?.interactionType != .verifySecondFactor
        if nevisChange, oldPin == nil { throw PhoneError(.badRequest, "MISSING_FIELD", "the PIN change needs 'oldPin' with the new 'pin'") }
        if !nevisChange, oldPin != nil { throw .invalid("oldPin", "goes only with a PIN change that asks old and new together") }
        // A PIN of the wrong shape is refused before anything: no key is derived, nothing is sent
        // or counted, and the screen asks again.
        let (phone, _) = try await phoneAndAccounts(phoneId)
        for entry in [pin, oldPin].compactMap({ $0 }) {
            do { try entry.withBytes { bytes throws(PinPolicyError) in try PinPolicy.checkFormat(bytes, length: phone.pinLength) } } catch {
                throw PhoneError(.badRequest, error.code, error.message)
            }
        }
        if flow.currentInteraction?.type == .setSecondFactor, flow.currentInteraction?.secondFactorInfo == .pinOnly {
            let policy = (try? PinPolicy(length: phone.pinLength)) ?? configuration.pinPolicy
            do { try pin.withBytes { bytes throws(PinPolicyError) in try policy.validate(bytes) } } catch {
                throw PhoneError(.badRequest, error.code, error.message)
            }
            if let oldPin, pin.hasSameBytes(as: oldPin) {
                throw PhoneError(.badRequest, "OLD_PIN_EQUALS_NEW_PIN", "the new PIN must differ from the old one")
            }
        }
        let action = try mutate(phoneId) { machine throws(FlowInputError) in try machine.inputPin() }
        await run(action, phoneId: phoneId, pin: pin, oldPin: oldPin)
    }

    /// The simulated biometric prompt: a match goes on to the flow; no match changes nothing
    /// (the OS prompt failed; the user may try again or use the PIN).
    public func inputBiometrics(phoneId: String, recognised: Bool) async throws(PhoneError) {
        guard let active = flows[phoneId], !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        let (phone, _) = try await phoneAndAccounts(phoneId)
        guard phone.biometricSensor, phone.enrolledFeatures > 0 else {
            throw .biometricsUnavailable("the sensor has no enrolled fingerprint or face")
        }
        var probe = active.machine
        do { _ = try probe.inputBiometrics() } catch { throw PhoneError(.conflict, error.code, error.message) }
        guard recognised else {
            throw PhoneError(.badRequest, "BIOMETRIC_NOT_RECOGNISED", "the sensor did not recognise the biometric; try again or use the PIN")
        }
        let action = try mutate(phoneId) { machine throws(FlowInputError) in try machine.inputBiometrics() }
        await run(action, phoneId: phoneId)
    }

    /// Cancels the flow, or a scanned session still starting.
    public func cancel(phoneId: String) async throws(PhoneError) {
        if cancelSessionStart(phoneId) { return }
        let action = try mutate(phoneId) { machine throws(FlowInputError) in try machine.cancel() }
        await run(action, phoneId: phoneId)
    }

    // MARK: carrying out the machine's actions

    /// Publishes the flow and carries out the machine's actions until it waits for the user or
    /// ends. A flow that ends by abandoning its session tells the backend first, so that when
    /// the screen shows the end, both sides have ended.
    func run(_ first: FlowAction, phoneId: String, pin: GuardedBytes? = nil, oldPin: GuardedBytes? = nil) async {
        var action = first
        while true {
            guard let active = flows[phoneId] else { return }
            if case .abandonSession = action {
                _ = try? await perform(action, active, phoneId: phoneId, pin: pin, oldPin: oldPin)
                publish(phoneId)
                return
            }
            publish(phoneId)
            if action == .none { return }
            do {
                action = try await perform(action, active, phoneId: phoneId, pin: pin, oldPin: oldPin)
            } catch {
                action = update(phoneId) { $0.machine.failed(error.flowError) }
            }
        }
    }

    private func perform(_ action: FlowAction, _ active: ActiveFlow, phoneId: String,
                         pin: GuardedBytes?, oldPin: GuardedBytes?) async throws(PhoneError) -> FlowAction {
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        switch action {
        case .none:
            return .none

        case .confirmSession(let accountID, let userInput):
            var signature: String?
            if let accountID {
                let key = try Self.accountKey(accounts, accountID)
                signature = Base64URL.encode(key.sign(SignedMessage.confirm(
                    sessionId: active.sessionId, challenge: active.challenge, accountId: accountID)))
            }
            let deviceSignature = try phone.deviceKey().sign(SignedMessage.confirm(
                sessionId: active.sessionId, challenge: active.challenge, accountId: accountID ?? ""))
            let response: ConfirmResponse = try await client(phone.id).post(
                active.serverURL, BackendRoutes.confirm(active.sessionId),
                ConfirmRequest(deviceId: phone.deviceId, accountId: accountID, signature: signature, userInput: userInput,
                               deviceSignature: Base64URL.encode(deviceSignature)))
            return update(phoneId) {
                $0.challenge = response.challenge
                return $0.machine.sessionConfirmed(secondFactorAccount: response.secondFactor.map(Self.secondFactorAccount))
            }

        case .confirmTransaction(let accountID):
            // The signature covers the very text the screen showed.
            let text = active.machine.flow.transaction ?? ""
            let key = try Self.accountKey(accounts, accountID)
            let signature = key.sign(SignedMessage.transaction(sessionId: active.sessionId, challenge: active.challenge,
                                                               accountId: accountID, text: text))
            let response: TransactionConfirmResponse = try await client(phone.id).post(
                active.serverURL, BackendRoutes.confirmTransaction(active.sessionId),
                TransactionConfirmRequest(deviceId: phone.deviceId, accountId: accountID, transaction: text,
                                          signature: Base64URL.encode(signature)))
            return update(phoneId) {
                $0.challenge = response.challenge
                return $0.machine.transactionConfirmed()
            }

        case .completeEnrolment(let use):
            guard let pin else { return update(phoneId) { $0.machine.failed(.init(code: "PIN_MISSING", message: "no PIN was given")) } }
            let salt = try use == .setNew ? Self.random(PinKeyDerivation.saltLength) : Array(phone.pinSalt ?? Data())
            let pinKey = try await derivePinKey(pin, salt: salt)
            let accountKey = try Self.newKeyPair()
            let publicKey = Base64URL.encode(accountKey.publicKey)
            let otpKeyPair = try Self.newOTPKeyPair()
            let otpPublicKey = Base64URL.encode(otpKeyPair.publicKey)
            let message = SignedMessage.enrol(sessionId: active.sessionId, challenge: active.challenge, accountPublicKey: publicKey)
            let response: SecondFactorResponse = try await client(phone.id).post(
                active.serverURL, BackendRoutes.enrol(active.sessionId),
                EnrolRequest(deviceId: phone.deviceId, accountPublicKey: publicKey,
                             accountSignature: Base64URL.encode(accountKey.sign(message)),
                             pinPublicKey: Base64URL.encode(pinKey.publicKey), pinSignature: Base64URL.encode(pinKey.sign(message)),
                             deviceName: phone.name, fcmToken: phone.fcmToken, otpPublicKey: otpPublicKey,
                             deviceSignature: Base64URL.encode(try phone.deviceKey().sign(message))))
            if response.result == .accepted, let accountId = response.accountId {
                let otp = try response.otp.map { answer throws(PhoneError) in
                    try Self.otpKey(answer, keyPair: otpKeyPair, phonePublicKey: otpPublicKey, sessionId: active.sessionId,
                                    accountId: accountId, server: active.server)
                }
                try await storeAccount(accountId, accountKey, active, phone: phone, newSalt: use == .setNew ? salt : nil, otp: otp)
            }
            return secondFactorChecked(response, phoneId: phoneId)

        case .verifySecondFactor(let accountID, .pin, let then):
            guard let pin else { return update(phoneId) { $0.machine.failed(.init(code: "PIN_MISSING", message: "no PIN was given")) } }
            let response = try await provePin(pin, phone: phone, accounts: accounts, accountID: accountID, active: active)
            return try await afterVerification(response, then: then, phone: phone, accounts: accounts, accountID: accountID, phoneId: phoneId)

        case .verifySecondFactor(let accountID, .biometrics, let then):
            guard let key = phone.validBiometricKey else { return try await biometricsRemoved(phone, phoneId: phoneId) }
            let accountKey = try Self.accountKey(accounts, accountID)
            let biometricKey = try Self.keyPair(key)
            let message = SignedMessage.verifyPin(sessionId: active.sessionId, challenge: active.challenge, accountId: accountID)
            let response: SecondFactorResponse
            do {
                response = try await client(phone.id).post(active.serverURL, BackendRoutes.verifyPin(active.sessionId), VerifyPinRequest(
                    deviceId: phone.deviceId, accountId: accountID, accountSignature: Base64URL.encode(accountKey.sign(message)),
                    biometricSignature: Base64URL.encode(biometricKey.sign(message)),
                    clearPinFailures: !phone.disallowPinChangeWithBiometric))
            } catch where error.code == "BIOMETRICS_NOT_REGISTERED" {
                return try await biometricsRemoved(phone, phoneId: phoneId)
            }
            if response.result == .accepted {
                try await write { db in
                    _ = try PhoneRecord.filter(key: phone.id).updateAll(db, Column("biometricUsesSinceLastPin") += 1)
                }
            }
            return try await afterVerification(response, then: then, phone: phone, accounts: accounts, accountID: accountID, phoneId: phoneId)

        case .setPin(let accountID):
            guard let pin else { return update(phoneId) { $0.machine.failed(.init(code: "PIN_MISSING", message: "no PIN was given")) } }
            return secondFactorChecked(try await registerNewPin(pin, phone: phone, accounts: accounts, accountID: accountID,
                                                                active: active), phoneId: phoneId)

        case .changePin(let accountID):
            guard let pin, let oldPin else {
                return update(phoneId) { $0.machine.failed(.init(code: "PIN_MISSING", message: "the old and the new PIN are needed")) }
            }
            let proof = try await provePin(oldPin, phone: phone, accounts: accounts, accountID: accountID, active: active)
            guard proof.result == .accepted, let next = proof.challenge else { return secondFactorChecked(proof, phoneId: phoneId) }
            var verified = active
            verified.challenge = next
            return secondFactorChecked(try await registerNewPin(pin, phone: phone, accounts: accounts, accountID: accountID,
                                                                active: verified), phoneId: phoneId)

        case .createBiometricKey(let accountID, let then):
            let key = try Self.newKeyPair()
            let secret = Data(key.exportSecretKey())
            if then == .registerBiometricKey {
                _ = try await registerBiometricKey(secret, phone: phone, accounts: accounts, accountID: accountID, active: active)
            } else {
                _ = update(phoneId) { $0.pendingBiometricKey = secret; return .none }
            }
            return update(phoneId) { $0.machine.biometricKeyCreated() }

        case .rotateAccountKey(let accountID):
            let oldKey = try Self.accountKey(accounts, accountID)
            let newKey = try Self.newKeyPair()
            let publicKey = Base64URL.encode(newKey.publicKey)
            let message = SignedMessage.rotate(sessionId: active.sessionId, challenge: active.challenge, accountId: accountID,
                                               newPublicKey: publicKey)
            let _: Acknowledged = try await client(phone.id).post(active.serverURL, BackendRoutes.rotate(active.sessionId), RotateKeyRequest(
                deviceId: phone.deviceId, accountId: accountID, newPublicKey: publicKey,
                oldKeySignature: Base64URL.encode(oldKey.sign(message)), newKeySignature: Base64URL.encode(newKey.sign(message))))
            let secret = Data(newKey.exportSecretKey())
            try await write { db in
                _ = try AccountRecord.filter(key: accountID).updateAll(db, Column("secretKey").set(to: secret))
            }
            return update(phoneId) { $0.machine.accountKeyRotated() }

        case .abandonSession(let error):
            // Best effort: the flow has ended on the phone whether or not the backend hears it.
            try? await abandon(active.sessionId, at: active.serverURL, code: error.code, phone: phone)
            return .none
        }
    }

    /// Tells the backend the flow ended without success, signed by the device key; best effort.
    func abandon(_ sessionId: String, at serverURL: String, code: String, phone: PhoneRecord) async throws(PhoneError) {
        let signature = try phone.deviceKey().sign(SignedMessage.abandon(sessionId: sessionId, code: code))
        let _: Acknowledged = try await client(phone.id).post(serverURL, BackendRoutes.abandon(sessionId), AbandonRequest(
            deviceId: phone.deviceId, code: code, deviceSignature: Base64URL.encode(signature)))
    }

    /// The PIN's proof for the session's current challenge; an accepted PIN restarts the
    /// PIN-less counts of seed 001.
    private func provePin(_ pin: GuardedBytes, phone: PhoneRecord, accounts: [AccountRecord], accountID: String,
                          active: ActiveFlow) async throws(PhoneError) -> SecondFactorResponse {
        guard let salt = phone.pinSalt else { throw PhoneError(.conflict, "PIN_NOT_ENROLLED", "this phone has no PIN") }
        let accountKey = try Self.accountKey(accounts, accountID)
        let pinKey = try await derivePinKey(pin, salt: Array(salt))
        let message = SignedMessage.verifyPin(sessionId: active.sessionId, challenge: active.challenge, accountId: accountID)
        let response: SecondFactorResponse = try await client(phone.id).post(
            active.serverURL, BackendRoutes.verifyPin(active.sessionId),
            VerifyPinRequest(deviceId: phone.deviceId, accountId: accountID, accountSignature: Base64URL.encode(accountKey.sign(message)),
                             pinSignature: Base64URL.encode(pinKey.sign(message))))
        if response.result == .accepted { try await pinUsed(phone.id) }
        return response
    }

    private func pinUsed(_ phoneId: String) async throws(PhoneError) {
        let time = now()
        try await write { db in
            _ = try PhoneRecord.filter(key: phoneId).updateAll(db, Column("biometricUsesSinceLastPin").set(to: 0),
                                                               Column("lastPinAt").set(to: time))
        }
    }

    /// After an accepted factor, the change a management flow makes; then the machine hears the outcome.
    private func afterVerification(_ response: SecondFactorResponse, then: FlowAction.Completion?, phone: PhoneRecord,
                                   accounts: [AccountRecord], accountID: String, phoneId: String) async throws(PhoneError) -> FlowAction {
        guard response.result == .accepted, let then else { return secondFactorChecked(response, phoneId: phoneId) }
        switch then {
        case .registerBiometricKey:
            guard let active = flows[phoneId], let secret = active.pendingBiometricKey, let next = response.challenge else {
                throw .serverResponse("no biometric key to register")
            }
            var verified = active
            verified.challenge = next
            return secondFactorChecked(try await registerBiometricKey(secret, phone: phone, accounts: accounts, accountID: accountID,
                                                                      active: verified), phoneId: phoneId)
        case .removeBiometricKey:
            try await write { db in
                _ = try PhoneRecord.filter(key: phone.id).updateAll(db, Column("biometricSecretKey").set(to: nil),
                                                                    Column("biometricKeySetVersion").set(to: nil))
            }
            await phoneChanged(phone.id)
            return secondFactorChecked(response, phoneId: phoneId)
        }
    }

    /// Seed 002's BIOMETRICS_REMOVED: the key no longer fits the enrolled features, so it is
    /// dropped (biometrics are off) and the flow asks again.
    private func biometricsRemoved(_ phone: PhoneRecord, phoneId: String) async throws(PhoneError) -> FlowAction {
        try await write { db in
            _ = try PhoneRecord.filter(key: phone.id).updateAll(db, Column("biometricSecretKey").set(to: nil),
                                                                Column("biometricKeySetVersion").set(to: nil))
        }
        await phoneChanged(phone.id)
        return update(phoneId) { $0.machine.biometricsRemoved() }
    }

    /// A new PIN key (with a new salt) registered at the Second Factor Server, then kept.
    private func registerNewPin(_ pin: GuardedBytes, phone: PhoneRecord, accounts: [AccountRecord], accountID: String,
                                active: ActiveFlow) async throws(PhoneError) -> SecondFactorResponse {
        let salt = try Self.random(PinKeyDerivation.saltLength)
        let pinKey = try await derivePinKey(pin, salt: salt)
        let response = try await setSecondFactor("pin", pinKey, phone: phone, accounts: accounts, accountID: accountID, active: active)
        try await write { db in
            _ = try PhoneRecord.filter(key: phone.id).updateAll(db, Column("pinSalt").set(to: Data(salt)))
        }
        try await pinUsed(phone.id)
        return response
    }

    /// The biometric key registered at the Second Factor Server, then kept, bound to the
    /// features enrolled now.
    private func registerBiometricKey(_ secret: Data, phone: PhoneRecord, accounts: [AccountRecord], accountID: String,
                                      active: ActiveFlow) async throws(PhoneError) -> SecondFactorResponse {
        let response = try await setSecondFactor("biometrics", try Self.keyPair(secret), phone: phone, accounts: accounts,
                                                 accountID: accountID, active: active)
        let version = phone.featureSetVersion
        try await write { db in
            _ = try PhoneRecord.filter(key: phone.id).updateAll(db, Column("biometricSecretKey").set(to: secret),
                                                                Column("biometricKeySetVersion").set(to: version),
                                                                Column("biometricUsesSinceLastPin").set(to: 0))
        }
        await phoneChanged(phone.id)
        return response
    }

    private func setSecondFactor(_ factor: String, _ key: Ed25519.KeyPair, phone: PhoneRecord, accounts: [AccountRecord],
                                 accountID: String, active: ActiveFlow) async throws(PhoneError) -> SecondFactorResponse {
        let accountKey = try Self.accountKey(accounts, accountID)
        let publicKey = Base64URL.encode(key.publicKey)
        let message = SignedMessage.setSecondFactor(sessionId: active.sessionId, challenge: active.challenge, factor: factor,
                                                    publicKey: publicKey)
        return try await client(phone.id).post(active.serverURL, BackendRoutes.setSecondFactor(active.sessionId), SetSecondFactorRequest(
            deviceId: phone.deviceId, accountId: accountID, factor: factor, publicKey: publicKey,
            accountSignature: Base64URL.encode(accountKey.sign(message)), factorSignature: Base64URL.encode(key.sign(message))))
    }

    private func phoneChanged(_ phoneId: String) async {
        if let detail = try? await phone(id: phoneId) { events.send(.phoneChanged(detail), to: phoneId) }
    }

    private func secondFactorChecked(_ response: SecondFactorResponse, phoneId: String) -> FlowAction {
        update(phoneId) {
            if let next = response.challenge { $0.challenge = next }
            let account = Self.secondFactorAccount(response.secondFactor)
            let outcome: SecondFactorOutcome = switch response.result {
            case .accepted: .accepted(account)
            case .rejected: .rejected(account)
            case .penalised: .penalised(account)
            }
            return $0.machine.secondFactorChecked(outcome)
        }
    }

    private func storeAccount(_ id: String, _ key: Ed25519.KeyPair, _ active: ActiveFlow, phone: PhoneRecord,
                              newSalt: [UInt8]?, otp: (reference: UInt32, key: [UInt8])?) async throws(PhoneError) {
        guard let serverKey = Base64URL.decode(active.server.publicKey) else { throw .serverResponse("bad server key") }
        let session = active.machine.flow.session
        let account = AccountRecord(
            id: id, phoneId: phone.id, userId: session?.userId ?? "", displayName: session?.enrolInfo?.displayName ?? "", serverName: active.server.name, serverURL: active.serverURL,
            serverPublicKey: Data(serverKey), secretKey: Data(key.exportSecretKey()), createdAt: now(),
            otpReference: otp?.reference, otpKey: otp.map { Data($0.key) })
        try await write { db in
            try account.insert(db)
            if let newSalt {
                var updated = phone
                updated.pinSalt = Data(newSalt)
                try updated.update(db)
            }
        }
        if let detail = try? await self.phone(id: phone.id) { events.send(.phoneChanged(detail), to: phone.id) }
    }

    // MARK: helpers

    /// Applies a user event to the phone's flow; a refused event changes nothing. `run` publishes.
    private func mutate(_ phoneId: String,
                        _ event: (inout FlowMachine) throws(FlowInputError) -> FlowAction) throws(PhoneError) -> FlowAction {
        guard var active = flows[phoneId], !active.machine.flow.state.isFinal else { throw .noActiveFlow }
        let action: FlowAction
        do { action = try event(&active.machine) } catch { throw PhoneError(.conflict, error.code, error.message) }
        flows[phoneId] = active
        return action
    }

    /// Applies an outcome to the phone's flow; `run` publishes it.
    private func update(_ phoneId: String, _ body: (inout ActiveFlow) -> FlowAction) -> FlowAction {
        guard var active = flows[phoneId] else { return .none }
        let action = body(&active)
        flows[phoneId] = active
        return action
    }

    private func publish(_ phoneId: String) {
        if let flow = flows[phoneId]?.machine.flow { events.send(.flowUpdate(flow), to: phoneId) }
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
              exact.contains(where: { origin(of: $0) == origin(of: url) && $0.path == path }) else {
            throw PhoneError(.forbidden, "REDEEM_URL_NOT_ALLOWED",
                             "a payload's redeem_url must be the backend's redeem route \(BackendRoutes.redeem), not \(path ?? url.absoluteString)",
                             sdkCode: 52)
        }
    }

    func checkAllowed(_ url: URL?) throws(PhoneError) {
        guard let url, let target = origin(of: url) else { throw .serverNotAllowed(url?.absoluteString ?? "(no URL)") }
        let allowed = configuration.allowedBackends().compactMap { URL(string: $0).flatMap(origin(of:)) }
        guard allowed.contains(target) else { throw .serverNotAllowed(target) }
    }

    /// Argon2id is deliberately slow: it runs off the actor.
    private nonisolated func derivePinKey(_ pin: GuardedBytes, salt: [UInt8]) async throws(PhoneError) -> Ed25519.KeyPair {
        do { return try configuration.pinDerivation.keyPair(pin: pin, salt: salt) } catch { throw .crypto(error.description) }
    }

    static func accountKey(_ accounts: [AccountRecord], _ id: String) throws(PhoneError) -> Ed25519.KeyPair {
        guard let account = accounts.first(where: { $0.id == id }) else {
            throw PhoneError(.notFound, "ACCOUNT_NOT_FOUND", "this phone has no account \(id)")
        }
        return try keyPair(account.secretKey)
    }

    private static func keyPair(_ secret: Data) throws(PhoneError) -> Ed25519.KeyPair {
        do { return try Ed25519.KeyPair(secretKey: Array(secret)) } catch { throw .crypto(error.description) }
    }

    private static func newKeyPair() throws(PhoneError) -> Ed25519.KeyPair {
        do { return try .generate() } catch { throw .crypto(error.description) }
    }

    private static func newOTPKeyPair() throws(PhoneError) -> KeyExchange.KeyPair {
        do { return try .generate() } catch { throw .crypto(error.description) }
    }

    /// The offline OTP key (seed 004) from the backend's half, once the server key the phone
    /// pins vouches for that half and the account's reference.
    private static func otpKey(_ answer: WireOTPEnrolment, keyPair: KeyExchange.KeyPair, phonePublicKey: String, sessionId: String,
                               accountId: String, server: WireServer) throws(PhoneError) -> (reference: UInt32, key: [UInt8]) {
        let message = SignedMessage.otpEnrolment(sessionId: sessionId, accountId: accountId, reference: answer.reference,
                                                 serverPublicKey: answer.serverPublicKey, phonePublicKey: phonePublicKey)
        guard answer.reference < OfflineOTP.referenceCount, let serverKey = Base64URL.decode(server.publicKey),
              let signature = Base64URL.decode(answer.signature), let backendHalf = Base64URL.decode(answer.serverPublicKey),
              Ed25519.verify(signature: signature, message: message, publicKey: serverKey)
        else { throw .serverAuthentication("the offline OTP key is not signed by the server's key") }
        do { return (answer.reference, try keyPair.clientSharedKey(serverPublicKey: backendHalf)) } catch {
            throw .serverResponse("the server's offline OTP key cannot be used: \(error.description)")
        }
    }

    private static func secondFactorAccount(_ wire: WireSecondFactorAccount) -> SecondFactorAccount {
        SecondFactorAccount(isBlocked: wire.isBlocked, failedAttempts: wire.failedAttempts, maxAttempts: wire.maxAttempts,
                            penalisedFor: wire.penalisedFor, penalisedUntil: wire.penalisedUntil)
    }

    static func random(_ count: Int) throws(PhoneError) -> [UInt8] {
        do { return try Sodium.randomBytes(count) } catch { throw .crypto(error.description) }
    }

    /// Shaped like an FCM registration token: an instance id, `:APA91b`, and a long random tail.
    static func makeFCMToken() throws(PhoneError) -> String {
        "\(Base64URL.encode(try random(8))):APA91b\(Base64URL.encode(try random(100)))"
    }

    func phoneAndAccounts(_ id: String) async throws(PhoneError) -> (PhoneRecord, [AccountRecord]) {
        let found = try await read { db -> (PhoneRecord, [AccountRecord])? in
            guard let phone = try PhoneRecord.fetchOne(db, key: id) else { return nil }
            let accounts = try AccountRecord.filter(AccountRecord.Columns.phoneId == id).order(AccountRecord.Columns.createdAt).fetchAll(db)
            return (phone, accounts)
        }
        guard let found else { throw .phoneNotFound(id) }
        return found
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(PhoneError) -> T {
        do { return try await database.writer.write(body) } catch { throw .storageFailed }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(PhoneError) -> T {
        do { return try await database.writer.read(body) } catch { throw .storageFailed }
    }
}
