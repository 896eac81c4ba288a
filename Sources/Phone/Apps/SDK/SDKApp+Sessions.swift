import AuthFlow
import BackendAPI
import Foundation
import Identifiers
import OTP
import OutOfBand
import SodiumKit

/// Sessions from a backend: a payload redeemed and checked (server key, allow-list), the flow it
/// starts, the user's confirmation or signed transaction, an enrolment, and the pull fallback.
extension SDKApp {
    /// Redeems a decoded payload at its backend and starts the flow it names. Until the
    /// session arrives it is STARTING (docs/behaviour.md#offline-otp): an offline OTP is on offer, and a backend that
    /// cannot be reached is tried again in the background (the caller hears error 70 at once).
    public func startOutOfBand(phoneId: String, payload: OutOfBandPayload) async throws(PhoneError) -> Flow {
        try await startOutOfBand(ReadPhone(try await device.phoneAndAccounts(phoneId)), payload: payload)
    }

    /// A phone as read once, handed back to start a payload on it without reading it again.
    public struct ReadPhone: Sendable {
        let local: (PhoneRecord, [AccountRecord])
        init(_ local: (PhoneRecord, [AccountRecord])) { self.local = local }
        public var id: String { local.0.id }
    }

    public func startOutOfBand(_ phone: ReadPhone, payload: OutOfBandPayload) async throws(PhoneError) -> Flow {
        let local = phone.local
        let phoneId = local.0.id
        try refuseDuringFlow(phoneId)
        guard phones[phoneId]?.starting != true else { throw .flowActive }
        try checkRedeemURL(payload.redeemData.redeemURL)
        phones[phoneId, default: SDKPhone()].starting = true
        defer { phones[phoneId]?.starting = false }
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
    func redeemAndCheck(
        _ phoneId: String, payload: OutOfBandPayload,
        local: (PhoneRecord, [AccountRecord])
    ) async throws(PhoneError) -> PreparedFlow {
        let (phone, onPhone) = local
        let deviceKey = try phone.deviceKey()
        let devicePublicKey = Base64URL.encode(deviceKey.publicKey)
        let session: RedeemResponse = try await device.network.post(
            payload.redeemData.redeemURL.absoluteString, "",
            RedeemRequest(
                token: payload.redeemData.token, deviceId: phone.deviceId, devicePublicKey: devicePublicKey,
                deviceSignature: Base64URL.encode(
                    deviceKey.sign(
                        SignedMessage.redeem(
                            token: payload.redeemData.token, deviceId: phone.deviceId, devicePublicKey: devicePublicKey)))), from: phoneId)
        guard let serverURL = URL(string: session.server.url) else { throw .serverParameters("the server URL is not a URL") }
        try device.checkAllowed(serverURL)
        guard let serverKey = Base64URL.decode(session.server.publicKey), serverKey.count == Ed25519.publicKeyLength else {
            throw .serverParameters("the server's public key is not an Ed25519 key in base64url")
        }
        guard let signature = Base64URL.decode(session.serverSignature),
            Ed25519.verify(
                signature: signature, message: SignedMessage.server(sessionId: session.sessionId, challenge: session.challenge),
                publicKey: serverKey)
        else { throw .serverAuthentication("the session is not signed by the server's key") }
        // The backend refuses such a text when the session starts; one that arrives anyway is not shown.
        if let text = session.transaction, let problem = ReadableText.problem(in: text, limit: ReadableText.maximumTransactionLength) {
            throw .serverResponse("the transaction text \(problem)")
        }
        if let problem = Announcement.problem(in: session.announceInfo) { throw .serverResponse("the announceInfo \(problem)") }
        if let logo = session.announceLogo, let problem = Announcement.logoProblem(logo) { throw .serverResponse("the announceLogo \(problem)") }

        // A server is known by the key pinned at enrolment, so it may move (another port, a new
        // host name); the same URL with another key is an impostor or a reset server.
        let accounts = onPhone.filter { Array($0.serverPublicKey) == serverKey }
        if session.type != .enrol, accounts.isEmpty, onPhone.contains(where: { $0.serverURL == session.server.url }) {
            throw .serverAuthentication("the server's key differs from the one pinned at enrolment")
        }
        let moved = accounts.filter { $0.serverURL != session.server.url }.map(\.id)
        if !moved.isEmpty {
            // The server moved (another port or host): remember where it is now.
            try await device.store.moveAccounts(moved, to: session.server.url)
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
        var info = SessionInfo(
            id: session.sessionId, type: type, expiresAt: session.expiresAt,
            server: ServerInfo(session.server),
            announceInfo: session.announceInfo, announceLogo: session.announceLogo,
            enrolInfo: session.displayName.map { EnrolInfo(displayName: $0, nsAccounts: session.existingAccounts ?? []) },
            userId: session.userId, preselectedAccountId: session.accountId, transaction: session.transaction)
        // only what a server may skip: never an enrolment's consent, nor a transaction's second factor
        info.skipConfirmation = session.skipConfirmation == true && type != .enrol ? true : nil
        info.skipSecondFactor = session.skipSecondFactor == true && type == .login ? true : nil
        return PreparedFlow(phone: phone, accounts: accounts, response: session, info: info)
    }

    /// The session arrived and the phone accepted it: its flow starts.
    func beginFlow(_ phoneId: String, _ prepared: PreparedFlow) async -> Flow {
        let (machine, action) = FlowMachine.start(
            id: UUID.random().uuidString.lowercased(), session: prepared.info,
            accounts: prepared.accounts.map(\.summary), phoneHasPin: prepared.phone.pinSalt != nil,
            options: prepared.phone.flowOptions(now: device.now()))
        let session = prepared.response
        phones[phoneId, default: SDKPhone()].flow = ActiveFlow(
            machine: machine, sessionId: session.sessionId, serverURL: session.server.url,
            server: session.server, challenge: session.challenge)
        await run(action, phoneId: phoneId)
        return phones[phoneId]?.flow?.machine.flow ?? machine.flow
    }

    /// The pull fallback: asks each backend this phone has accounts at for the operations
    /// waiting for them, newest first. The phone proves each account with its key.
    public func pendingOperations(phoneId: String) async throws(PhoneError) -> [PendingOperation] {
        let (phone, accounts) = try await device.phoneAndAccounts(phoneId)
        var found: [String: PendingOperation] = [:]
        // Accounts at servers the phone may no longer talk to are passed over, not an error.
        for account in accounts where (try? device.checkAllowed(URL(string: account.serverURL))) != nil {
            let key = try SDKKeys.accountKey(accounts, account.id)
            let time = device.now()
            let answer: PendingResponse = try await device.network.post(
                account.serverURL, BackendRoutes.pending,
                PendingRequest(
                    deviceId: phone.deviceId, accountId: account.id, timestamp: time,
                    signature: Base64URL.encode(key.sign(SignedMessage.pending(accountId: account.id, timestamp: time)))), from: phoneId)
            for operation in answer.operations { found[operation.sessionId] = operation }
        }
        return found.values.sorted { $0.createdAt > $1.createdAt }
    }

    public func confirmSession(phoneId: String, accountID: String?, userInput: String? = nil) async throws(PhoneError) {
        try Self.checkUserInput(userInput)
        let action = try applyUserEvent(phoneId) { machine throws(FlowInputError) in
            try machine.confirmSession(accountID: accountID, userInput: userInput)
        }
        await run(action, phoneId: phoneId)
    }

    /// Free text for the relying party (docs/behaviour.md#user-interaction), refused before anything when unreadable.
    static func checkUserInput(_ userInput: String?) throws(PhoneError) {
        if let userInput, !userInput.isEmpty, let problem = ReadableText.problem(in: userInput, limit: ReadableText.maximumUserInputLength) {
            throw .invalid("userInput", problem)
        }
    }

    public func confirmTransaction(phoneId: String) async throws(PhoneError) {
        let action = try applyUserEvent(phoneId) { machine throws(FlowInputError) in try machine.confirmTransaction() }
        await run(action, phoneId: phoneId)
    }

    /// Cancels the flow, or a scanned session still starting.
    public func cancel(phoneId: String) async throws(PhoneError) {
        if cancelSessionStart(phoneId) { return }
        let action = try applyUserEvent(phoneId) { machine throws(FlowInputError) in try machine.cancel() }
        await run(action, phoneId: phoneId)
    }

    /// Sends the user's confirmation (with the chosen account's signature for a login) and learns the second factor's state.
    func confirmAtServer(_ step: FlowStep, accountID: String?, userInput: String?) async throws(PhoneError) -> FlowAction {
        let (phone, accounts, active) = (step.phone, step.accounts, step.active)
        let phoneId = step.phone.id
        var signature: String?
        if let accountID {
            let key = try SDKKeys.accountKey(accounts, accountID)
            signature = Base64URL.encode(
                key.sign(
                    SignedMessage.confirm(
                        sessionId: active.sessionId, challenge: active.challenge, accountId: accountID)))
        }
        let deviceSignature = try phone.deviceKey().sign(
            SignedMessage.confirm(
                sessionId: active.sessionId, challenge: active.challenge, accountId: accountID ?? ""))
        let response: ConfirmResponse = try await device.network.post(
            active.serverURL, BackendRoutes.confirm(active.sessionId),
            ConfirmRequest(
                deviceId: phone.deviceId, accountId: accountID, signature: signature, userInput: userInput,
                deviceSignature: Base64URL.encode(deviceSignature)), from: phone.id)
        return applyOutcome(phoneId) {
            $0.challenge = response.challenge
            return $0.machine.sessionConfirmed(secondFactorAccount: response.secondFactor.map(SecondFactorAccount.init))
        }
    }

    /// Signs the very text the screen showed and sends it.
    func signTransactionAtServer(_ step: FlowStep, accountID: String) async throws(PhoneError) -> FlowAction {
        let (phone, accounts, active) = (step.phone, step.accounts, step.active)
        let phoneId = step.phone.id
        let text = active.machine.flow.transaction ?? ""
        let key = try SDKKeys.accountKey(accounts, accountID)
        let signature = key.sign(
            SignedMessage.transaction(
                sessionId: active.sessionId, challenge: active.challenge,
                accountId: accountID, text: text))
        let response: TransactionConfirmResponse = try await device.network.post(
            active.serverURL, BackendRoutes.confirmTransaction(active.sessionId),
            TransactionConfirmRequest(
                deviceId: phone.deviceId, accountId: accountID, transaction: text,
                signature: Base64URL.encode(signature)), from: phone.id)
        return applyOutcome(phoneId) {
            $0.challenge = response.challenge
            return $0.machine.transactionConfirmed()
        }
    }

    /// A new account: its key, the PIN key (set, or the phone's PIN proven), the biometric key
    /// when the user set one with a new PIN, and the offline OTP key agreement, in one request.
    func enrolAtServer(
        _ step: FlowStep, pin: GuardedBytes, use: FlowAction.PinUse, withBiometrics: Bool, userInput: String?
    ) async throws(PhoneError) -> FlowAction {
        let (phone, active) = (step.phone, step.active)
        let phoneId = step.phone.id
        let salt = try use == .setNew ? Device.random(PinKeyDerivation.saltLength) : Array(phone.pinSalt ?? Data())
        let pinKey = try await device.pinPad.deriveKey(pin, salt: salt, phoneId: phone.id)
        let accountKey = try SDKKeys.newKeyPair()
        let publicKey = Base64URL.encode(accountKey.publicKey)
        let otpKeyPair = try SDKKeys.newOTPKeyPair()
        let otpPublicKey = Base64URL.encode(otpKeyPair.publicKey)
        let message = SignedMessage.enrol(sessionId: active.sessionId, challenge: active.challenge, accountPublicKey: publicKey)
        let biometricKey = withBiometrics ? try SDKKeys.newKeyPair() : nil
        let response: SecondFactorResponse = try await device.network.post(
            active.serverURL, BackendRoutes.enrol(active.sessionId),
            EnrolRequest(
                deviceId: phone.deviceId, accountPublicKey: publicKey,
                accountSignature: Base64URL.encode(accountKey.sign(message)),
                pinPublicKey: Base64URL.encode(pinKey.publicKey), pinSignature: Base64URL.encode(pinKey.sign(message)),
                deviceName: phone.name, fcmToken: phone.fcmToken, otpPublicKey: otpPublicKey,
                deviceSignature: Base64URL.encode(try phone.deviceKey().sign(message)),
                biometricPublicKey: biometricKey.map { Base64URL.encode($0.publicKey) },
                biometricSignature: biometricKey.map { Base64URL.encode($0.sign(message)) }, userInput: userInput), from: phone.id)
        if response.result == .accepted, let accountId = response.accountId {
            let otp = try response.otp.map { answer throws(PhoneError) in
                try SDKKeys.otpKey(
                    answer, keyPair: otpKeyPair, phonePublicKey: otpPublicKey, sessionId: active.sessionId,
                    accountId: accountId, server: active.server)
            }
            try await storeAccount(
                accountId, accountKey, active, phone: phone, newSalt: use == .setNew ? salt : nil, pinPublicKey: Data(pinKey.publicKey), otp: otp)
            if let biometricKey {
                // bound to the features enrolled now, as ADD_BIOMETRICS binds it (docs/behaviour.md#biometrics)
                try await device.store.keepBiometricKey(
                    phoneId: phone.id, Data(biometricKey.exportSecretKey()), featureSetVersion: phone.featureSetVersion)
                await device.announce(phone.id)
            }
        }
        return secondFactorChecked(response, phoneId: phoneId)
    }

    func storeAccount(
        _ id: String, _ key: Ed25519.KeyPair, _ active: ActiveFlow, phone: PhoneRecord,
        newSalt: [UInt8]?, pinPublicKey: Data, otp: (reference: UInt32, key: [UInt8])?
    ) async throws(PhoneError) {
        guard let serverKey = Base64URL.decode(active.server.publicKey) else { throw .serverResponse("bad server key") }
        let session = active.machine.flow.session
        let account = AccountRecord(
            id: id, phoneId: phone.id, userId: session?.userId ?? "", displayName: session?.enrolInfo?.displayName ?? "",
            serverName: active.server.name, serverURL: active.serverURL,
            serverPublicKey: Data(serverKey), secretKey: Data(key.exportSecretKey()), createdAt: device.now(),
            otpReference: otp?.reference, otpKey: otp.map { Data($0.key) })
        try await device.store.insert(account, pinSalt: newSalt.map { Data($0) }, pinPublicKey: pinPublicKey)
        await device.announce(phone.id)
    }

    /// Tells the backend the flow ended without success, signed by the device key; best effort.
    func abandon(_ sessionId: String, at serverURL: String, code: String, phone: PhoneRecord) async throws(PhoneError) {
        let signature = try phone.deviceKey().sign(SignedMessage.abandon(sessionId: sessionId, code: code))
        let _: Acknowledged = try await device.network.post(
            serverURL, BackendRoutes.abandon(sessionId),
            AbandonRequest(
                deviceId: phone.deviceId, code: code, deviceSignature: Base64URL.encode(signature)), from: phone.id)
    }
}
