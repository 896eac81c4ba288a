import BackendAPI
import Foundation

/// The Second Factor Server: it checks the PIN or biometric proof of a session and counts wrong
/// PINs against the policy in force, inside the flow's one write transaction.
extension DemoBackend {
    /// The second-factor proof of a login, transaction or management flow, checked by the Second
    /// Factor Server: the PIN (counted against the policy) or the biometric key (which, as seed
    /// 001 says, clears the PIN's failures unless the phone asks otherwise).
    public func verifySecondFactor(sessionId: String, _ request: VerifyPinRequest) async throws(BackendError) -> SecondFactorResponse {
        let time = now()
        guard (request.pinSignature == nil) != (request.biometricSignature == nil) else {
            throw BackendError.invalid("pinSignature", "or 'biometricSignature' is required, not both")
        }
        try Self.checkUserInput(request.userInput)
        let (record, response) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, for: .secondFactorAccepted, now: time)
            guard record.accountId == request.accountId else { throw BackendError.accountNotFound(request.accountId) }
            if record.sessionType == .transaction, record.transactionSignature == nil {
                throw BackendError.wrongState(record.status, expected: "with its transaction signed first")
            }
            let account = try Self.deviceAccount(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.verifySecondFactor(sessionId: record.id, challenge: record.challenge, accountId: account.id)
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
                (outcome, updated) = Self.checkPin(
                    registered, signature: request.pinSignature ?? "", message: message, policy: policy,
                    now: time, deviceKey: record.devicePublicKey)
            }
            var final = updated
            if outcome == .accepted {
                // given with the factor (seed 002): the relying party sees the latest text the user gave
                record.userInput = request.userInput ?? record.userInput
                let actions = try record.handle(.secondFactorAccepted, at: time)
                if actions.contains(.removeBiometricKey) { final.biometricPublicKey = nil }
                try Self.carryOut(actions, for: record, tx)
            } else {
                _ = try record.handle(Self.rejection(updated), at: time)
            }
            try tx.update(final)
            try tx.update(record)
            let next = outcome != .accepted || record.status == .verified ? record.challenge : nil
            return (
                record,
                SecondFactorResponse(
                    result: outcome, secondFactor: Self.wireState(of: final, policy: policy, now: time),
                    accountId: nil, challenge: next)
            )
        }
        notify(record)
        return response
    }

    /// The user's free text for the relying party, with a confirmation or a second factor.
    static func checkUserInput(_ userInput: String?) throws(BackendError) {
        if let userInput { try checkText(userInput, field: "userInput", limit: ReadableText.maximumUserInputLength) }
    }

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

    func secondFactorPolicy(_ tx: BackendStore.Transaction) throws -> SecondFactorPolicy {
        try tx.storedPolicy() ?? configuration.secondFactorPolicy
    }

    /// Checks a PIN proof and counts the outcome. Runs inside the caller's write transaction, so
    /// concurrent proofs are serialised and can never get more tries than the policy allows.
    /// Blocked or penalised: refused without touching the counters. `deviceKey` is the key the
    /// request was signed with: a device registered before devices had keys has its PIN
    /// counted only once a right PIN has bound that key to it.
    static func checkPin(
        _ account: SecondFactorRecord, signature: String, message: [UInt8], policy: SecondFactorPolicy,
        now: Date, deviceKey: Data?
    ) -> (SecondFactorResponse.Result, SecondFactorRecord) {
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

    /// A refused proof, as the session's machine hears it: with the device's counters after it.
    /// A phone that cannot go on with the biometric abandons the session.
    static func rejection(_ secondFactor: SecondFactorRecord) -> SessionMachine.Event {
        .secondFactorRejected(blocked: secondFactor.isBlocked, biometricsRegistered: secondFactor.biometricPublicKey != nil)
    }

    /// What the session's machine leaves to the database: `removeBiometricKey` is the caller's,
    /// on the second factor it is about to save.
    static func carryOut(_ actions: [SessionMachine.Action], for record: SessionRecord, _ tx: BackendStore.Transaction) throws {
        if actions.contains(.clearOTPFailures), let accountId = record.accountId { try tx.clearOTPFailures(accountId: accountId) }
    }

    /// The counters as the phone shows them, a penalty as the seconds left from `now`.
    static func wireState(of record: SecondFactorRecord, policy: SecondFactorPolicy, now: Date) -> WireSecondFactorAccount {
        let remaining = record.penalisedUntil.map { max(0, Int($0.timeIntervalSince(now).rounded(.up))) } ?? 0
        return WireSecondFactorAccount(
            isBlocked: record.isBlocked, failedAttempts: record.failedAttempts,
            maxAttempts: policy.maxAttempts, penalisedFor: remaining,
            penalisedUntil: remaining > 0 ? record.penalisedUntil : nil)
    }
}
