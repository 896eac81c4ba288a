import BackendAPI
import Broadcast
import Faults
import Foundation
import OutOfBand
import Retry
import SodiumKit

/// The demo authentication server with its Second Factor Server. Phones reach it only through
/// its HTTP routes; the console reads sessions and watches `events`.
public final class DemoBackend: Sendable {
    public struct Configuration: Sendable {
        public var serverName: String
        public var sessionLifetime: TimeInterval
        public var secondFactorPolicy: SecondFactorPolicy
        /// The FCM-compatible push endpoint's base URL; nil: this server's own push service.
        public var pushURL: String?
        public var pushProject: String
        /// Retries of a push that FCM says may succeed later (429, 500, 503, no connection).
        public var pushRetry: RetryPolicy
        /// Consecutive wrong offline OTPs an account takes before its OTP is locked (at most 100).
        public var maxOTPFailures: Int

        public static let defaultPushRetry = RetryPolicy.exponential(
            maxRetries: 3, initialDelay: .milliseconds(500), maximumDelay: .seconds(4), multiplier: 2)

        public init(serverName: String = "AuthPhone demo backend", sessionLifetime: TimeInterval = 300,
                    secondFactorPolicy: SecondFactorPolicy = .nextAuth, pushURL: String? = nil, pushProject: String = "authphone",
                    pushRetry: RetryPolicy = defaultPushRetry, maxOTPFailures: Int = OTPFailureLimit.maximum) {
            self.serverName = serverName
            self.sessionLifetime = sessionLifetime
            self.secondFactorPolicy = secondFactorPolicy
            self.pushURL = pushURL
            self.pushProject = pushProject
            self.pushRetry = pushRetry
            self.maxOTPFailures = maxOTPFailures
        }
    }

    let store: BackendStore
    let configuration: Configuration
    /// The backend's own base URL (known once the server listens), for redeem URLs.
    let baseURL: @Sendable () -> String
    let now: @Sendable () -> Date
    let serverKey: Ed25519.KeyPair
    let wire: WireHTTPClient
    let pushRetrying: Retrying
    let faults: FaultInjector?
    let sleep: @Sendable (Duration) async throws -> Void
    /// Every change of a session, for the console.
    public let events = Broadcaster<BackendSession>()

    public init(database: BackendStore, configuration: Configuration = .init(),
                baseURL: @escaping @Sendable () -> String, now: @escaping @Sendable () -> Date = Date.init,
                wire: WireHTTPClient = WireHTTPClient(),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                faults: FaultInjector? = nil) throws {
        store = database
        self.wire = wire
        self.faults = faults
        self.sleep = sleep
        pushRetrying = Retrying(policy: configuration.pushRetry, sleep: sleep)
        self.configuration = configuration
        self.baseURL = baseURL
        self.now = now
        serverKey = try Ed25519.KeyPair(secretKey: database.serverSecretKey(now: now()) { try Ed25519.KeyPair.generate().exportSecretKey() })
    }

    var server: WireServer {
        WireServer(name: configuration.serverName, url: baseURL(), publicKey: Base64URL.encode(serverKey.publicKey))
    }

    // MARK: console side

    /// How a session reaches the phone: shown as QR code and link, or pushed (to the given
    /// registration token, or else to every device the user enrolled).
    public enum Delivery: Sendable, Equatable {
        case qr
        case push(token: String?)
    }

    /// Starts a session. A login or transaction may pre-select one of the user's accounts; a
    /// transaction needs its text and a user with an account here.
    public func createSession(type: WireSessionType, userId: String, displayName: String?, transaction: String? = nil,
                              accountId: String? = nil, delivery: Delivery = .qr) async throws(BackendError) -> BackendSession {
        let userId = userId.trimmingCharacters(in: .whitespaces)
        if let problem = ReadableText.nameProblem(in: userId, limit: 128) { throw BackendError.invalid("userId", problem) }
        let name = (displayName?.trimmingCharacters(in: .whitespaces)).flatMap { $0.isEmpty ? nil : $0 } ?? userId
        if let problem = ReadableText.nameProblem(in: name, limit: 128) { throw BackendError.invalid("displayName", problem) }
        switch (type, transaction) {
        case (.transaction, nil): throw BackendError.invalid("transaction", "is required for a transaction")
        case (.transaction, let text?): try Self.checkText(text, field: "transaction", limit: ReadableText.maximumTransactionLength)
        case (_, .some): throw BackendError.invalid("transaction", "goes only with the type transaction")
        case (_, nil): break
        }
        if WireSessionType.management.contains(type) {
            throw BackendError.invalid("type", "\(type.rawValue) is started by the phone itself, not by the backend")
        }
        if accountId != nil, type == .enrol { throw BackendError.invalid("accountId", "cannot be chosen for an enrolment") }
        let created = now()
        let record = SessionRecord(
            id: UUID().uuidString.lowercased(), type: type.rawValue, userId: userId, displayName: name,
            token: try Self.randomToken(), status: .pending, challenge: try Self.randomToken(),
            deviceId: nil, accountId: accountId, failure: nil, otplogin: false,
            createdAt: created, expiresAt: created.addingTimeInterval(configuration.sessionLifetime), updatedAt: created,
            delivery: delivery == .qr ? "qr" : "push", dispatch: nil, transactionText: transaction)
        try await write { tx in
            if let accountId {
                guard let account = try tx.account(id: accountId), account.userId == userId else {
                    throw BackendError(.notFound, "ACCOUNT_NOT_FOUND", "the user \(userId) has no account \(accountId)")
                }
            } else if type == .transaction || type == .upgrade,
                      try !tx.hasAccounts(ofUser: userId) {
                throw BackendError(.notFound, "USER_NOT_ENROLLED", "the user \(userId) has no account here for a \(type.rawValue)")
            }
            try tx.insert(record)
        }
        guard case .push(let token) = delivery else { return publish(record) }
        publish(record)
        return try await dispatch(record, to: token)
    }

    /// Sends the session's payload through the FCM v1 API and records how it went.
    private func dispatch(_ record: SessionRecord, to explicitToken: String?) async throws(BackendError) -> BackendSession {
        let userId = record.userId
        let tokens: [String]
        if let explicitToken {
            tokens = [explicitToken]
        } else {
            tokens = try await read { tx in try tx.pushTokens(ofUser: userId) }
        }
        let base = configuration.pushURL ?? baseURL()
        let (title, body): (String, String) = switch record.sessionType {
        case .login: ("Log in to \(configuration.serverName)?", "Confirm the login of \(record.userId) on this phone.")
        case .transaction: ("Confirm a transaction at \(configuration.serverName)", "A transaction for \(record.userId) waits for you.")
        default: ("Add an account at \(configuration.serverName)", "Enrol \(record.displayName) on this phone.")
        }
        var results: [String] = []
        for token in tokens {
            let message = FCMSend(token: token, data: PushMessage.data(for: payload(for: record)), title: title, body: body)
            let url = base + FCMSend.path(project: configuration.pushProject)
            let (sent, attempts) = await pushRetrying.run { [self] _ -> AttemptOutcome<Bool> in
                if let struck = await pushFault() { return struck }
                return await Self.send(message, to: url, wire: wire)
            }
            results.append(sent != nil ? "dispatched" : attempts.last?.outcome ?? "dispatchError")
        }
        let outcome = results.isEmpty ? "dispatchTargetNotFound" : results.contains("dispatched") ? "dispatched" : results[0]
        let time = now()
        let final = try await write { tx -> SessionRecord in
            try tx.recordDispatch(outcome, sessionId: record.id, at: time)
            return try tx.session(id: record.id) ?? record
        }
        return publish(final)
    }

    public func session(id: String) async throws(BackendError) -> BackendSession {
        guard let record = try await read({ tx in try tx.session(id: id) }) else { throw BackendError.sessionNotFound(id) }
        return view(record)
    }

    public func recentSessions(limit: Int = 50) async throws(BackendError) -> [BackendSession] {
        try await read { tx in try tx.recentSessions(limit: limit) }.map(view)
    }

    public func qrCodeSVG(sessionId: String) async throws(BackendError) -> String {
        let session = try await session(id: sessionId)
        do { return try QRCode(session.qrText).svg() } catch {
            throw BackendError(.unavailable, "QR_ENCODING_FAILED", error.message)
        }
    }

    // MARK: phone side (the wire in BackendAPI)

    /// The device proves it holds the key it presents, and a device the Second Factor Server
    /// knows must present the key it registered: a stranger with its (public) device id is
    /// refused before anything changes.
    public func redeem(_ request: RedeemRequest) async throws(BackendError) -> RedeemResponse {
        try Self.checkDeviceId(request.deviceId)
        let deviceKey = try Self.publicKey(request.devicePublicKey, field: "devicePublicKey")
        guard Self.verify(request.deviceSignature, SignedMessage.redeem(token: request.token, deviceId: request.deviceId,
                                                                        devicePublicKey: request.devicePublicKey), key: deviceKey)
        else { throw BackendError.invalidSignature }
        let time = now()
        let (record, existing) = try await write { tx in
            guard var record = try tx.session(token: request.token) else {
                throw BackendError.tokenUnknown
            }
            guard record.status == .pending else { throw BackendError.tokenAlreadyRedeemed }
            guard record.expiresAt > time else { throw BackendError.tokenExpired }
            if let registered = try tx.secondFactor(deviceId: request.deviceId)?.devicePublicKey, registered != deviceKey {
                throw BackendError.deviceKeyMismatch
            }
            record.status = .redeemed
            record.deviceId = request.deviceId
            record.devicePublicKey = deviceKey
            record.updatedAt = time
            try tx.update(record)
            let existing = record.type == WireSessionType.enrol.rawValue
                ? try tx.accounts(ofUser: record.userId).map(\.displayName) : nil
            return (record, existing)
        }
        publish(record)
        let type = record.sessionType ?? .login
        return RedeemResponse(
            sessionId: record.id, type: type, expiresAt: record.expiresAt, server: server,
            announceInfo: ["Service": configuration.serverName, "User": record.userId],
            displayName: type == .enrol ? record.displayName : nil, existingAccounts: existing,
            userId: record.userId, accountId: record.accountId, transaction: record.transactionText, challenge: record.challenge,
            serverSignature: Base64URL.encode(serverKey.sign(SignedMessage.server(sessionId: record.id, challenge: record.challenge))))
    }

    public func confirm(sessionId: String, _ request: ConfirmRequest) async throws(BackendError) -> ConfirmResponse {
        let time = now()
        if let userInput = request.userInput { try Self.checkText(userInput, field: "userInput", limit: ReadableText.maximumUserInputLength) }
        let (record, secondFactor) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, status: .redeemed, now: time)
            try Self.checkDeviceSignature(request.deviceSignature, record, SignedMessage.confirm(
                sessionId: record.id, challenge: record.challenge, accountId: request.accountId ?? ""))
            let policy = try self.secondFactorPolicy(tx)
            if record.sessionType != .enrol {
                guard let accountId = request.accountId, let signature = request.signature else {
                    throw BackendError.invalid("accountId", "and a signature are required to confirm a \(record.type)")
                }
                let account = try Self.account(tx, id: accountId, device: request.deviceId)
                guard account.userId == record.userId, record.accountId == nil || record.accountId == accountId else {
                    throw BackendError.accountNotFound(accountId)
                }
                let message = SignedMessage.confirm(sessionId: record.id, challenge: record.challenge, accountId: accountId)
                guard Self.verify(signature, message, key: account.publicKey) else { throw BackendError.invalidSignature }
                record.accountId = accountId
            }
            record.userInput = request.userInput
            record.status = .confirmed
            record.challenge = try Self.randomToken()
            record.updatedAt = time
            try tx.update(record)
            let secondFactor = try tx.secondFactor(deviceId: request.deviceId)
            return (record, secondFactor.map { Self.wire($0, policy: policy, now: time) })
        }
        publish(record)
        return ConfirmResponse(secondFactor: secondFactor, challenge: record.challenge)
    }

    /// Registers a new account; the PIN is set (first enrolment of the device here) or proven.
    public func enrol(sessionId: String, _ request: EnrolRequest) async throws(BackendError) -> SecondFactorResponse {
        let time = now()
        guard let accountKey = Base64URL.decode(request.accountPublicKey), accountKey.count == Ed25519.publicKeyLength else {
            throw BackendError.invalid("accountPublicKey", "must be a base64url Ed25519 public key")
        }
        guard let pinKey = Base64URL.decode(request.pinPublicKey), pinKey.count == Ed25519.publicKeyLength else {
            throw BackendError.invalid("pinPublicKey", "must be a base64url Ed25519 public key")
        }
        try Self.checkDeviceInformation(name: request.deviceName, nameField: "deviceName", fcmToken: request.fcmToken)
        let otpAgreement = try request.otpPublicKey.map { key throws(BackendError) in try Self.agreeOTPKey(phonePublicKey: key) }
        let (record, response) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, status: .confirmed, now: time)
            guard record.type == WireSessionType.enrol.rawValue else { throw BackendError.wrongState(record.status, expected: "an enrolment") }
            let policy = try self.secondFactorPolicy(tx)
            let message = SignedMessage.enrol(sessionId: record.id, challenge: record.challenge, accountPublicKey: request.accountPublicKey)
            guard Self.verify(request.accountSignature, message, key: Data(accountKey)) else { throw BackendError.invalidSignature }
            try Self.checkDeviceSignature(request.deviceSignature, record, message)

            let secondFactor: SecondFactorRecord
            if let registered = try tx.secondFactor(deviceId: request.deviceId) {
                let (outcome, updated) = Self.checkPin(registered, signature: request.pinSignature, message: message,
                                                       policy: policy, now: time, deviceKey: record.devicePublicKey)
                try tx.update(updated)
                guard outcome == .accepted else {
                    Self.afterRejection(&record, updated)
                    try tx.update(record)
                    return (record, SecondFactorResponse(result: .rejected, secondFactor: Self.wire(updated, policy: policy, now: time),
                                                         accountId: nil, challenge: record.challenge))
                }
                secondFactor = updated
            } else {
                // First PIN of this device here: the proof shows the phone holds the PIN key it registers.
                guard Self.verify(request.pinSignature, message, key: Data(pinKey)) else { throw BackendError.invalidSignature }
                secondFactor = SecondFactorRecord(deviceId: request.deviceId, pinPublicKey: Data(pinKey), failedAttempts: 0,
                                                  isBlocked: false, penalisedUntil: nil, updatedAt: time, biometricPublicKey: nil,
                                                  devicePublicKey: record.devicePublicKey)
                try tx.insert(secondFactor)
            }
            var account = AccountRecord(id: UUID().uuidString.lowercased(), userId: record.userId, displayName: record.displayName,
                                        deviceId: request.deviceId, publicKey: Data(accountKey), createdAt: time)
            var otp: WireOTPEnrolment?
            if let otpAgreement {
                let reference = try Self.freeOTPReference(tx)
                account.otpReference = reference
                account.otpKey = Data(otpAgreement.sharedKey)
                otp = self.otpEnrolment(otpAgreement, sessionId: record.id, accountId: account.id, reference: reference)
            }
            try tx.insert(account)
            try tx.save(DeviceRecord(deviceId: request.deviceId, name: request.deviceName ?? request.deviceId,
                                     fcmToken: request.fcmToken, updatedAt: time))
            record.status = .enrolled
            record.accountId = account.id
            record.updatedAt = time
            try tx.update(record)
            return (record, SecondFactorResponse(result: .accepted, secondFactor: Self.wire(secondFactor, policy: policy, now: time),
                                                 accountId: account.id, challenge: nil, otp: otp))
        }
        publish(record)
        return response
    }

    /// The user confirmed the transaction: the phone signed the text it showed. Any other text,
    /// or a signature over any other text, is refused and changes nothing.
    public func confirmTransaction(sessionId: String, _ request: TransactionConfirmRequest) async throws(BackendError)
        -> TransactionConfirmResponse {
        let time = now()
        let record = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, status: .confirmed, now: time)
            guard record.sessionType == .transaction, let text = record.transactionText else {
                throw BackendError.wrongState(record.status, expected: "a transaction")
            }
            guard record.transactionSignature == nil else { throw BackendError.wrongState(record.status, expected: "not yet signed") }
            guard record.accountId == request.accountId else { throw BackendError.accountNotFound(request.accountId) }
            guard request.transaction == text else {
                throw BackendError(.forbidden, "TRANSACTION_ALTERED", "the transaction text differs from the one this session was started with")
            }
            let account = try Self.account(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.transaction(sessionId: record.id, challenge: record.challenge, accountId: account.id, text: text)
            guard Self.verify(request.signature, message, key: account.publicKey) else { throw BackendError.invalidSignature }
            record.transactionSignature = request.signature
            record.challenge = try Self.randomToken()
            record.updatedAt = time
            try tx.update(record)
            return record
        }
        publish(record)
        return TransactionConfirmResponse(challenge: record.challenge)
    }

    /// The second-factor proof of a login, transaction or management flow, checked by the Second
    /// Factor Server: the PIN (counted against the policy) or the biometric key (which, as seed
    /// 001 says, clears the PIN's failures unless the phone asks otherwise).
    public func verifyPin(sessionId: String, _ request: VerifyPinRequest) async throws(BackendError) -> SecondFactorResponse {
        let time = now()
        guard (request.pinSignature == nil) != (request.biometricSignature == nil) else {
            throw BackendError.invalid("pinSignature", "or 'biometricSignature' is required, not both")
        }
        let (record, response) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, status: .confirmed, now: time)
            guard record.sessionType != .enrol, record.sessionType != .upgrade, record.accountId == request.accountId else {
                throw BackendError.accountNotFound(request.accountId)
            }
            if record.sessionType == .transaction, record.transactionSignature == nil {
                throw BackendError.wrongState(record.status, expected: "with its transaction signed first")
            }
            let account = try Self.account(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.verifyPin(sessionId: record.id, challenge: record.challenge, accountId: account.id)
            guard Self.verify(request.accountSignature, message, key: account.publicKey) else { throw BackendError.invalidSignature }
            guard var registered = try tx.secondFactor(deviceId: request.deviceId) else { throw BackendError.secondFactorUnknown }
            let policy = try self.secondFactorPolicy(tx)
            let (outcome, updated): (SecondFactorResponse.Result, SecondFactorRecord)
            if let biometricSignature = request.biometricSignature {
                guard let key = registered.biometricPublicKey else { throw BackendError.biometricsNotRegistered }
                guard Self.verify(biometricSignature, message, key: key) else { throw BackendError.invalidSignature }
                if request.clearPinFailures != false {
                    registered.failedAttempts = 0
                    registered.isBlocked = false
                    registered.penalisedUntil = nil
                }
                registered.updatedAt = time
                (outcome, updated) = (.accepted, registered)
            } else {
                (outcome, updated) = Self.checkPin(registered, signature: request.pinSignature ?? "", message: message, policy: policy,
                                                   now: time, deviceKey: record.devicePublicKey)
            }
            var final = updated
            if outcome == .accepted {
                switch record.sessionType {
                case .transaction: record.status = .signed
                case .changePin, .addBiometrics:
                    record.status = .verified
                    record.challenge = try Self.randomToken()
                case .removeBiometrics:
                    final.biometricPublicKey = nil
                    record.status = .completed
                default:
                    record.status = .loggedin
                    // a login with the second factor vouches for the user: the offline OTP's failures start afresh
                    try tx.clearOTPFailures(accountId: account.id)
                }
            } else {
                Self.afterRejection(&record, updated)
            }
            try tx.update(final)
            record.updatedAt = time
            try tx.update(record)
            let next = outcome != .accepted || record.status == .verified ? record.challenge : nil
            return (record, SecondFactorResponse(result: outcome, secondFactor: Self.wire(final, policy: policy, now: time),
                                                 accountId: nil, challenge: next))
        }
        publish(record)
        return response
    }

    // MARK: the phone's own flows

    /// A phone starts CHANGE_PIN, ADD_BIOMETRICS or REMOVE_BIOMETRICS for its device's factors.
    /// The session it gets is already confirmed (the account key signed the request) and shows
    /// on the console like any other.
    public func startManagement(_ request: ManagementRequest) async throws(BackendError) -> ManagementResponse {
        let time = now()
        guard WireSessionType.management.contains(request.type) else {
            let names = WireSessionType.management.map(\.rawValue).sorted().joined(separator: ", ")
            throw BackendError.invalid("type", "must be one of \(names)")
        }
        guard abs(request.timestamp.timeIntervalSince(time)) <= Self.pendingClockSkew else {
            throw BackendError(.badRequest, "STALE_REQUEST", "the request's timestamp is more than \(Int(Self.pendingClockSkew)) s from the server's clock")
        }
        let (record, response) = try await write { tx in
            let account = try Self.account(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.management(accountId: account.id, type: request.type, timestamp: request.timestamp)
            guard Self.verify(request.signature, message, key: account.publicKey) else { throw BackendError.invalidSignature }
            guard let secondFactor = try tx.secondFactor(deviceId: request.deviceId) else { throw BackendError.secondFactorUnknown }
            if request.type == .removeBiometrics, secondFactor.biometricPublicKey == nil { throw BackendError.biometricsNotRegistered }
            let record = SessionRecord(
                id: UUID().uuidString.lowercased(), type: request.type.rawValue, userId: account.userId, displayName: account.displayName,
                token: try Self.randomToken(), status: .confirmed, challenge: try Self.randomToken(),
                deviceId: request.deviceId, accountId: account.id, failure: nil, otplogin: false,
                createdAt: time, expiresAt: time.addingTimeInterval(self.configuration.sessionLifetime), updatedAt: time,
                delivery: "phone", dispatch: nil, devicePublicKey: secondFactor.devicePublicKey)
            try tx.insert(record)
            let policy = try self.secondFactorPolicy(tx)
            return (record, ManagementResponse(sessionId: record.id, expiresAt: record.expiresAt, challenge: record.challenge,
                                               secondFactor: Self.wire(secondFactor, policy: policy, now: time),
                                               biometricsRegistered: secondFactor.biometricPublicKey != nil))
        }
        publish(record)
        return response
    }

    /// A verified CHANGE_PIN registers the new PIN key (its counters start afresh); a verified
    /// ADD_BIOMETRICS registers the biometric key.
    public func setSecondFactor(sessionId: String, _ request: SetSecondFactorRequest) async throws(BackendError) -> SecondFactorResponse {
        let time = now()
        let expected: [String: WireSessionType] = ["pin": .changePin, "biometrics": .addBiometrics]
        guard let type = expected[request.factor] else { throw BackendError.invalid("factor", "must be pin or biometrics") }
        guard let newKey = Base64URL.decode(request.publicKey), newKey.count == Ed25519.publicKeyLength else {
            throw BackendError.invalid("publicKey", "must be a base64url Ed25519 public key")
        }
        let (record, response) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, status: .verified, now: time)
            guard record.sessionType == type else { throw BackendError.wrongState(record.status, expected: "a \(type.rawValue) session") }
            guard record.accountId == request.accountId else { throw BackendError.accountNotFound(request.accountId) }
            let account = try Self.account(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.setSecondFactor(sessionId: record.id, challenge: record.challenge, factor: request.factor,
                                                        publicKey: request.publicKey)
            guard Self.verify(request.accountSignature, message, key: account.publicKey),
                  Self.verify(request.factorSignature, message, key: Data(newKey))
            else { throw BackendError.invalidSignature }
            guard var secondFactor = try tx.secondFactor(deviceId: request.deviceId) else { throw BackendError.secondFactorUnknown }
            if type == .changePin {
                secondFactor.pinPublicKey = Data(newKey)
                secondFactor.failedAttempts = 0
                secondFactor.isBlocked = false
                secondFactor.penalisedUntil = nil
            } else {
                secondFactor.biometricPublicKey = Data(newKey)
            }
            secondFactor.updatedAt = time
            try tx.update(secondFactor)
            record.status = .completed
            record.updatedAt = time
            try tx.update(record)
            let policy = try self.secondFactorPolicy(tx)
            return (record, SecondFactorResponse(result: .accepted, secondFactor: Self.wire(secondFactor, policy: policy, now: time),
                                                 accountId: nil, challenge: nil))
        }
        publish(record)
        return response
    }

    /// HEADLESS_UPGRADE: the account key is replaced by one the old key vouches for.
    public func rotateKey(sessionId: String, _ request: RotateKeyRequest) async throws(BackendError) {
        let time = now()
        guard let newKey = Base64URL.decode(request.newPublicKey), newKey.count == Ed25519.publicKeyLength else {
            throw BackendError.invalid("newPublicKey", "must be a base64url Ed25519 public key")
        }
        let record = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, status: .redeemed, now: time)
            guard record.sessionType == .upgrade else { throw BackendError.wrongState(record.status, expected: "an upgrade") }
            var account = try Self.account(tx, id: request.accountId, device: request.deviceId)
            guard account.userId == record.userId, record.accountId == nil || record.accountId == account.id else {
                throw BackendError.accountNotFound(request.accountId)
            }
            let message = SignedMessage.rotate(sessionId: record.id, challenge: record.challenge, accountId: account.id,
                                               newPublicKey: request.newPublicKey)
            guard Self.verify(request.oldKeySignature, message, key: account.publicKey),
                  Self.verify(request.newKeySignature, message, key: Data(newKey))
            else { throw BackendError.invalidSignature }
            account.publicKey = Data(newKey)
            try tx.update(account)
            record.accountId = account.id
            record.status = .completed
            record.updatedAt = time
            try tx.update(record)
            return record
        }
        publish(record)
    }

    /// The phone ended the flow without success (cancelled, blocked, no account).
    public func abandon(sessionId: String, _ request: AbandonRequest) async throws(BackendError) {
        let time = now()
        guard AbandonRequest.codes.contains(request.code) else {
            throw BackendError.invalid("code", "must be one of \(AbandonRequest.codes.sorted().joined(separator: ", "))")
        }
        let record = try await write { tx in
            guard var record = try tx.session(id: sessionId) else { throw BackendError.sessionNotFound(sessionId) }
            guard record.deviceId == request.deviceId else { throw BackendError.wrongDevice }
            try Self.checkDeviceSignature(request.deviceSignature, record, SignedMessage.abandon(sessionId: record.id, code: request.code))
            guard !record.status.isFinal else { throw BackendError.wrongState(record.status, expected: "not finished") }
            record.status = request.code == "USER_CANCELED" ? .canceled : .failed
            record.failure = request.code
            record.updatedAt = time
            try tx.update(record)
            return record
        }
        publish(record)
    }

    /// How far a phone's clock may be from the server's for a pending-operations request.
    static let pendingClockSkew: TimeInterval = 300

    /// The login sessions waiting for the account's user: what a phone without pushes pulls.
    public func pendingOperations(_ request: PendingRequest) async throws(BackendError) -> PendingResponse {
        let time = now()
        guard abs(request.timestamp.timeIntervalSince(time)) <= Self.pendingClockSkew else {
            throw BackendError(.badRequest, "STALE_REQUEST", "the request's timestamp is more than \(Int(Self.pendingClockSkew)) s from the server's clock")
        }
        let records = try await read { tx in
            guard let account = try tx.account(id: request.accountId), account.deviceId == request.deviceId,
                  Self.verify(request.signature, SignedMessage.pending(accountId: account.id, timestamp: request.timestamp),
                              key: account.publicKey)
            else { throw BackendError.invalidSignature }
            return try tx.pendingSessions(of: account, types: [.login, .transaction, .upgrade], at: time)
        }
        return PendingResponse(operations: records.map {
            PendingOperation(sessionId: $0.id, type: $0.sessionType ?? .login, createdAt: $0.createdAt, expiresAt: $0.expiresAt,
                             payload: payload(for: $0).qrText)
        })
    }

    // MARK: the Second Factor Server's counting

    /// The policy in force: the one set from the console, else the configured one.
    public func secondFactorPolicy() async throws(BackendError) -> SecondFactorPolicy {
        try await read { tx in try self.secondFactorPolicy(tx) }
    }

    /// Applies from the next PIN checked; counters already reached stay as they are.
    public func setSecondFactorPolicy(_ policy: SecondFactorPolicy) async throws(BackendError) -> SecondFactorPolicy {
        let policy = try policy.validated()
        let time = now()
        try await write { tx in try tx.save(policy, at: time) }
        return policy
    }

    private func secondFactorPolicy(_ tx: BackendStore.Transaction) throws -> SecondFactorPolicy {
        try tx.storedPolicy() ?? configuration.secondFactorPolicy
    }

    /// Checks a PIN proof and counts the outcome. Runs inside the caller's write transaction, so
    /// concurrent proofs are serialised and can never get more tries than the policy allows.
    /// Blocked or penalised: refused without touching the counters. `deviceKey` is the key the
    /// request was signed with: a device registered before devices had keys has its PIN
    /// counted only once a right PIN has bound that key to it.
    static func checkPin(_ account: SecondFactorRecord, signature: String, message: [UInt8], policy: SecondFactorPolicy,
                         now: Date, deviceKey: Data?) -> (SecondFactorResponse.Result, SecondFactorRecord) {
        if account.isBlocked { return (.rejected, account) }
        if let until = account.penalisedUntil, until > now { return (.penalised, account) }
        var updated = account
        updated.updatedAt = now
        if verify(signature, message, key: account.pinPublicKey) {
            updated.failedAttempts = 0
            updated.penalisedUntil = nil
            if updated.devicePublicKey == nil { updated.devicePublicKey = deviceKey }
            return (.accepted, updated)
        }
        guard account.devicePublicKey != nil, account.devicePublicKey == deviceKey else { return (.rejected, account) }
        updated.failedAttempts += 1
        updated.isBlocked = updated.failedAttempts >= policy.maxAttempts
        let penalty = policy.penalty(afterFailures: updated.failedAttempts)
        updated.penalisedUntil = penalty > 0 && !updated.isBlocked ? now.addingTimeInterval(TimeInterval(penalty)) : nil
        return (.rejected, updated)
    }

    private static func afterRejection(_ record: inout SessionRecord, _ secondFactor: SecondFactorRecord) {
        if secondFactor.isBlocked {
            record.status = .failed
            record.failure = "PIN_BLOCKED"
        } else {
            record.challenge = (try? randomToken()) ?? record.challenge
        }
    }

    static func wire(_ record: SecondFactorRecord, policy: SecondFactorPolicy, now: Date) -> WireSecondFactorAccount {
        let remaining = record.penalisedUntil.map { max(0, Int($0.timeIntervalSince(now).rounded(.up))) } ?? 0
        return WireSecondFactorAccount(isBlocked: record.isBlocked, failedAttempts: record.failedAttempts,
                                       maxAttempts: policy.maxAttempts, penalisedFor: remaining,
                                       penalisedUntil: remaining > 0 ? record.penalisedUntil : nil)
    }

    // MARK: helpers

    private static func activeSession(_ tx: BackendStore.Transaction, id: String, device: String, status: SessionStatus,
                                      now: Date) throws -> SessionRecord {
        guard let record = try tx.session(id: id) else { throw BackendError.sessionNotFound(id) }
        guard record.deviceId == device else { throw BackendError.wrongDevice }
        guard record.expiresAt > now else { throw BackendError.sessionExpired }
        guard record.status == status else { throw BackendError.wrongState(record.status, expected: status.rawValue) }
        return record
    }

    static func account(_ tx: BackendStore.Transaction, id: String, device: String) throws -> AccountRecord {
        guard let account = try tx.account(id: id), account.deviceId == device else {
            throw BackendError.accountNotFound(id)
        }
        return account
    }

    /// The request is signed by the key of the device that redeemed the session.
    private static func checkDeviceSignature(_ signature: String, _ record: SessionRecord, _ message: [UInt8]) throws(BackendError) {
        guard let key = record.devicePublicKey, verify(signature, message, key: key) else { throw BackendError.invalidSignature }
    }

    static func publicKey(_ text: String, field: String) throws(BackendError) -> Data {
        guard let key = Base64URL.decode(text), key.count == Ed25519.publicKeyLength else {
            throw BackendError.invalid(field, "must be a base64url Ed25519 public key")
        }
        return Data(key)
    }

    static func verify(_ signature: String, _ message: [UInt8], key: Data) -> Bool {
        guard let bytes = Base64URL.decode(signature) else { return false }
        return Ed25519.verify(signature: bytes, message: message, publicKey: Array(key))
    }

    private static func checkText(_ text: String, field: String, limit: Int) throws(BackendError) {
        if let problem = ReadableText.problem(in: text, limit: limit) { throw BackendError.invalid(field, problem) }
    }

    private static func checkDeviceId(_ id: String) throws(BackendError) {
        guard (1...128).contains(id.utf8.count), id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw BackendError.invalid("deviceId", "must be 1 to 128 printable ASCII characters")
        }
    }

    static func randomToken() throws(BackendError) -> String {
        do { return Base64URL.encode(try Sodium.randomBytes(32)) } catch {
            throw BackendError(.unavailable, "CRYPTO_UNAVAILABLE", error.description)
        }
    }

    private func view(_ record: SessionRecord) -> BackendSession {
        BackendSession(record, payload: payload(for: record), now: now())
    }

    /// One FCM send, judged as FCM's documentation says: 429, 500, 503 and no answer may succeed
    /// later (honouring Retry-After); UNREGISTERED and other refusals will not.
    private static func send(_ message: FCMSend, to url: String, wire: WireHTTPClient) async -> AttemptOutcome<Bool> {
        let answer: WireHTTPClient.Answer
        do { answer = try await wire.post(url, json: message) } catch {
            return .retryable(reason: "dispatchError: \(error.description)", retryAfter: nil)
        }
        if answer.isSuccess { return .success(true) }
        let code = (try? answer.decode(FCMErrorBody.self))?.error.details.first?.errorCode ?? "HTTP \(answer.status)"
        if [429, 500, 503].contains(answer.status) {
            return .retryable(reason: "dispatchError: \(code)", retryAfter: answer.retryAfter)
        }
        return .failure(reason: code == "UNREGISTERED" ? "dispatchTargetExpired" : "dispatchError: \(code)")
    }

    /// A fault set on the push service strikes the backend's send as the network would; a late
    /// answer (nil) lets the send go on.
    private func pushFault() async -> AttemptOutcome<Bool>? {
        guard let faults, let fault = faults.strike([.push], requests: true) else { return nil }
        switch fault {
        case .unreachable:
            return .retryable(reason: "dispatchError: connection refused (a fault set on purpose)", retryAfter: nil)
        case .hang:
            try? await sleep(.seconds(10))
            return .retryable(reason: "dispatchError: no answer (a fault set on purpose)", retryAfter: nil)
        case .status(let code, let retryAfter):
            let reason = "dispatchError: HTTP \(code) (a fault set on purpose)"
            return [429, 500, 503].contains(code) ? .retryable(reason: reason, retryAfter: retryAfter.map { .seconds($0) }) : .failure(reason: reason)
        case .latency(let minimum, let maximum):
            try? await sleep(faults.latency(minimum, maximum))
            return nil
        case .dropPush, .delayPush, .offline:
            return nil
        }
    }

    /// The part of FCM's error answer the backend reads.
    private struct FCMErrorBody: Decodable {
        struct Inner: Decodable {
            struct Detail: Decodable { let errorCode: String }
            let details: [Detail]
        }
        let error: Inner
    }

    private func payload(for record: SessionRecord) -> OutOfBandPayload {
        let redeemURL = URL(string: baseURL() + BackendRoutes.redeem) ?? URL(string: "http://127.0.0.1" + BackendRoutes.redeem)!
        return OutOfBandPayload(redeemData: .init(token: record.token, redeemURL: redeemURL))
    }

    @discardableResult
    func publish(_ record: SessionRecord) -> BackendSession {
        let session = view(record)
        events.send(session)
        return session
    }

    /// Runs a write transaction; a thrown BackendError rolls it back and passes through, any
    /// other failure becomes a 503 with the reason.
    func write<T: Sendable>(_ body: @escaping @Sendable (BackendStore.Transaction) throws -> T) async throws(BackendError) -> T {
        do {
            return try await store.write(body)
        } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError(.unavailable, "DATABASE_ERROR", "the backend database failed")
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (BackendStore.Transaction) throws -> T) async throws(BackendError) -> T {
        do { return try await store.read(body) } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError(.unavailable, "DATABASE_ERROR", "the backend database failed")
        }
    }
}
