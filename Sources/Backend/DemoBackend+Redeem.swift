import BackendAPI
import Foundation
import Identifiers
import OutOfBand

/// The phone's side of a session the console started: it redeems the token, confirms (choosing
/// an account), and enrols, or signs a transaction before its second factor is checked; it may
/// give up at any step. A phone without pushes pulls its pending logins.
extension DemoBackend {
    /// The device proves it holds the key it presents, and a device the Second Factor Server
    /// knows must present the key it registered: a stranger with its (public) device id is
    /// refused before anything changes.
    public func redeem(_ request: RedeemRequest) async throws(BackendError) -> RedeemResponse {
        try Self.checkDeviceId(request.deviceId)
        let deviceKey = try Self.decodePublicKey(request.devicePublicKey, field: "devicePublicKey")
        guard
            Self.verify(
                request.deviceSignature,
                SignedMessage.redeem(
                    token: request.token, deviceId: request.deviceId,
                    devicePublicKey: request.devicePublicKey), key: deviceKey)
        else { throw BackendError.invalidSignature }
        let time = now()
        let (record, existing) = try await write { tx in
            guard var record = try tx.session(token: request.token) else {
                throw BackendError.tokenUnknown
            }
            do {
                try record.machine.check(.redeemed, at: time)
                if let registered = try tx.secondFactor(deviceId: request.deviceId)?.devicePublicKey, registered != deviceKey {
                    throw BackendError.deviceKeyMismatch
                }
            } catch let refusal as BackendError { throw refusal.about(session: record.id) }
            _ = try record.handle(.redeemed, at: time)
            record.deviceId = request.deviceId
            record.devicePublicKey = deviceKey
            try tx.update(record)
            let existing =
                record.type == WireSessionType.enrol.rawValue
                ? try tx.accounts(ofUser: record.userId).map(\.displayName) : nil
            return (record, existing)
        }
        notify(record)
        let type = record.sessionType ?? .login
        return RedeemResponse(
            sessionId: record.id, type: type, expiresAt: record.expiresAt, server: server,
            announceInfo: record.announceInfo ?? ["Service": configuration.serverName, "User": record.userId],
            announceLogo: record.announceLogo,
            skipConfirmation: record.skipConfirmation ? true : nil, skipSecondFactor: record.skipSecondFactor ? true : nil,
            displayName: type == .enrol ? record.displayName : nil, existingAccounts: existing,
            userId: record.userId, accountId: record.accountId, transaction: record.transactionText, challenge: record.challenge,
            serverSignature: Base64URL.encode(serverKey.sign(SignedMessage.server(sessionId: record.id, challenge: record.challenge))))
    }

    public func confirm(sessionId: String, _ request: ConfirmRequest) async throws(BackendError) -> ConfirmResponse {
        let time = now()
        try Self.checkUserInput(request.userInput)
        let (record, secondFactor) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, for: .confirmed, now: time)
            try Self.checkDeviceSignature(
                request.deviceSignature, record,
                SignedMessage.confirm(
                    sessionId: record.id, challenge: record.challenge, accountId: request.accountId ?? ""))
            let policy = try self.secondFactorPolicy(tx)
            if record.sessionType != .enrol {
                guard let accountId = request.accountId, let signature = request.signature else {
                    throw BackendError.invalid("accountId", "and a signature are required to confirm a \(record.type)")
                }
                let account = try Self.deviceAccount(tx, id: accountId, device: request.deviceId)
                guard account.userId == record.userId, record.accountId == nil || record.accountId == accountId else {
                    throw BackendError.accountNotFound(accountId)
                }
                let message = SignedMessage.confirm(sessionId: record.id, challenge: record.challenge, accountId: accountId)
                guard Self.verify(signature, message, key: account.publicKey) else { throw BackendError.invalidSignature }
                record.accountId = accountId
            }
            record.userInput = request.userInput
            let actions = try record.handle(.confirmed, at: time)
            try Self.carryOut(actions, for: record, tx)
            try tx.update(record)
            let secondFactor = try tx.secondFactor(deviceId: request.deviceId)
            return (record, secondFactor.map { Self.wireState(of: $0, policy: policy, now: time) })
        }
        notify(record)
        return ConfirmResponse(secondFactor: secondFactor, challenge: record.challenge)
    }

    /// Registers a new account; the PIN is set (first enrolment of the device here) or proven.
    public func enrol(sessionId: String, _ request: EnrolRequest) async throws(BackendError) -> SecondFactorResponse {
        let time = now()
        let accountKey = try Self.decodePublicKey(request.accountPublicKey, field: "accountPublicKey")
        let pinKey = try Self.decodePublicKey(request.pinPublicKey, field: "pinPublicKey")
        try Self.checkDeviceInformation(name: request.deviceName, nameField: "deviceName", fcmToken: request.fcmToken)
        try Self.checkUserInput(request.userInput)
        let otpAgreement = try request.otpPublicKey.map { key throws(BackendError) in try Self.agreeOTPKey(phonePublicKey: key) }
        guard (request.biometricPublicKey == nil) == (request.biometricSignature == nil) else {
            throw BackendError.invalid("biometricPublicKey", "and 'biometricSignature' go together")
        }
        let biometricKey = try request.biometricPublicKey.map { key throws(BackendError) in
            try Self.decodePublicKey(key, field: "biometricPublicKey")
        }
        let (record, response) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, for: .accountEnrolled, now: time)
            let policy = try self.secondFactorPolicy(tx)
            let message = SignedMessage.enrol(sessionId: record.id, challenge: record.challenge, accountPublicKey: request.accountPublicKey)
            guard Self.verify(request.accountSignature, message, key: accountKey) else { throw BackendError.invalidSignature }
            try Self.checkDeviceSignature(request.deviceSignature, record, message)

            if let biometricKey, !Self.verify(request.biometricSignature ?? "", message, key: biometricKey) {
                throw BackendError.invalidSignature
            }
            let secondFactor: SecondFactorRecord
            if let registered = try tx.secondFactor(deviceId: request.deviceId) {
                guard biometricKey == nil else {
                    throw BackendError.invalid("biometricPublicKey", "is set only with the device's first PIN; add biometrics with ADD_BIOMETRICS")
                }
                let (outcome, updated) = Self.checkPin(
                    registered, signature: request.pinSignature, message: message,
                    policy: policy, now: time, deviceKey: record.devicePublicKey)
                try tx.update(updated)
                guard outcome == .accepted else {
                    _ = try record.handle(Self.rejection(updated), at: time)
                    try tx.update(record)
                    return (
                        record,
                        SecondFactorResponse(
                            result: .rejected, secondFactor: Self.wireState(of: updated, policy: policy, now: time),
                            accountId: nil, challenge: record.challenge)
                    )
                }
                secondFactor = updated
            } else {
                // First PIN of this device here: the proof shows the phone holds the PIN key it registers.
                guard Self.verify(request.pinSignature, message, key: pinKey) else { throw BackendError.invalidSignature }
                secondFactor = SecondFactorRecord(
                    deviceId: request.deviceId, pinPublicKey: pinKey, failedAttempts: 0,
                    isBlocked: false, penalisedUntil: nil, updatedAt: time, biometricPublicKey: biometricKey,
                    devicePublicKey: record.devicePublicKey)
                try tx.insert(secondFactor)
            }
            var account = AccountRecord(
                id: UUID.random().uuidString.lowercased(), userId: record.userId, displayName: record.displayName,
                deviceId: request.deviceId, publicKey: accountKey, createdAt: time)
            var otp: WireOTPEnrolment?
            if let otpAgreement {
                let reference = try Self.freeOTPReference(tx)
                account.otpReference = reference
                account.otpKey = Data(otpAgreement.sharedKey)
                otp = self.otpEnrolment(otpAgreement, sessionId: record.id, accountId: account.id, reference: reference)
            }
            try tx.insert(account)
            try tx.save(
                DeviceRecord(
                    deviceId: request.deviceId, name: request.deviceName ?? request.deviceId,
                    fcmToken: request.fcmToken, updatedAt: time))
            _ = try record.handle(.accountEnrolled, at: time)
            record.accountId = account.id
            record.userInput = request.userInput ?? record.userInput
            try tx.update(record)
            return (
                record,
                SecondFactorResponse(
                    result: .accepted, secondFactor: Self.wireState(of: secondFactor, policy: policy, now: time),
                    accountId: account.id, challenge: nil, otp: otp)
            )
        }
        notify(record)
        return response
    }

    /// The user confirmed the transaction: the phone signed the text it showed. Any other text,
    /// or a signature over any other text, is refused and changes nothing.
    public func confirmTransaction(sessionId: String, _ request: TransactionConfirmRequest) async throws(BackendError)
        -> TransactionConfirmResponse
    {
        let time = now()
        let record = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, for: .transactionSigned, now: time)
            guard let text = record.transactionText else { throw BackendError.wrongState(record.status, expected: "a transaction") }
            guard record.transactionSignature == nil else { throw BackendError.wrongState(record.status, expected: "not yet signed") }
            guard record.accountId == request.accountId else { throw BackendError.accountNotFound(request.accountId) }
            guard request.transaction == text else {
                throw BackendError(.forbidden, "TRANSACTION_ALTERED", "the transaction text differs from the one this session was started with")
            }
            let account = try Self.deviceAccount(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.transaction(sessionId: record.id, challenge: record.challenge, accountId: account.id, text: text)
            guard Self.verify(request.signature, message, key: account.publicKey) else { throw BackendError.invalidSignature }
            record.transactionSignature = request.signature
            _ = try record.handle(.transactionSigned, at: time)
            try tx.update(record)
            return record
        }
        notify(record)
        return TransactionConfirmResponse(challenge: record.challenge)
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
            _ = try record.handle(.abandoned(code: request.code), at: time)
            try tx.update(record)
            return record
        }
        notify(record)
    }

    /// The login sessions waiting for the account's user: what a phone without pushes pulls.
    public func pendingOperations(_ request: PendingRequest) async throws(BackendError) -> PendingResponse {
        let time = now()
        try Self.checkTimestamp(request.timestamp, now: time)
        let records = try await read { tx in
            guard let account = try tx.account(id: request.accountId), account.deviceId == request.deviceId,
                Self.verify(
                    request.signature, SignedMessage.pending(accountId: account.id, timestamp: request.timestamp),
                    key: account.publicKey)
            else { throw BackendError.invalidSignature }
            return try tx.pendingSessions(of: account, types: [.login, .transaction, .upgrade], at: time)
        }
        return PendingResponse(
            operations: records.map {
                PendingOperation(
                    sessionId: $0.id, type: $0.sessionType ?? .login, createdAt: $0.createdAt, expiresAt: $0.expiresAt,
                    payload: payload(for: $0).qrText)
            })
    }
}
