import BackendAPI
import Foundation
import Identifiers

/// The flows a phone starts itself: changing its PIN or biometrics (started, verified by
/// `verifySecondFactor`, then set), and the headless key rotation of an upgrade session.
extension DemoBackend {
    /// A phone starts CHANGE_PIN, ADD_BIOMETRICS or REMOVE_BIOMETRICS for its device's factors.
    /// The session it gets is already confirmed (the account key signed the request) and shows
    /// on the console like any other.
    public func startManagement(_ request: ManagementRequest) async throws(BackendError) -> ManagementResponse {
        let time = now()
        guard WireSessionType.management.contains(request.type) else {
            let names = WireSessionType.management.map(\.rawValue).sorted().joined(separator: ", ")
            throw BackendError.invalid("type", "must be one of \(names)")
        }
        try Self.checkTimestamp(request.timestamp, now: time)
        let (record, response) = try await write { tx in
            let account = try Self.deviceAccount(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.management(accountId: account.id, type: request.type, timestamp: request.timestamp)
            guard Self.verify(request.signature, message, key: account.publicKey) else { throw BackendError.invalidSignature }
            guard let secondFactor = try tx.secondFactor(deviceId: request.deviceId) else { throw BackendError.secondFactorUnknown }
            if request.type == .removeBiometrics, secondFactor.biometricPublicKey == nil { throw BackendError.biometricsNotRegistered }
            let record = SessionRecord(
                id: UUID.random().uuidString.lowercased(), type: request.type.rawValue, userId: account.userId, displayName: account.displayName,
                token: try Self.randomToken(), status: SessionMachine.initialStatus(of: request.type), challenge: try Self.randomToken(),
                deviceId: request.deviceId, accountId: account.id, failure: nil, otplogin: false,
                createdAt: time, expiresAt: time.addingTimeInterval(self.configuration.sessionLifetime), updatedAt: time,
                delivery: "phone", dispatch: nil, devicePublicKey: secondFactor.devicePublicKey)
            try tx.insert(record)
            let policy = try self.secondFactorPolicy(tx)
            return (
                record,
                ManagementResponse(
                    sessionId: record.id, expiresAt: record.expiresAt, challenge: record.challenge,
                    secondFactor: Self.wireState(of: secondFactor, policy: policy, now: time),
                    biometricsRegistered: secondFactor.biometricPublicKey != nil)
            )
        }
        notify(record)
        return response
    }

    /// A verified CHANGE_PIN registers the new PIN key (its counters start afresh); a verified
    /// ADD_BIOMETRICS registers the biometric key.
    public func setSecondFactor(sessionId: String, _ request: SetSecondFactorRequest) async throws(BackendError) -> SecondFactorResponse {
        let time = now()
        let expected: [String: WireSessionType] = ["pin": .changePin, "biometrics": .addBiometrics]
        guard let type = expected[request.factor] else { throw BackendError.invalid("factor", "must be pin or biometrics") }
        let newKey = try Self.decodePublicKey(request.publicKey, field: "publicKey")
        let (record, response) = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, for: .factorSet, now: time)
            guard record.sessionType == type else { throw BackendError.wrongState(record.status, expected: "a \(type.rawValue) session") }
            guard record.accountId == request.accountId else { throw BackendError.accountNotFound(request.accountId) }
            let account = try Self.deviceAccount(tx, id: request.accountId, device: request.deviceId)
            let message = SignedMessage.setSecondFactor(
                sessionId: record.id, challenge: record.challenge, factor: request.factor,
                publicKey: request.publicKey)
            guard Self.verify(request.accountSignature, message, key: account.publicKey),
                Self.verify(request.factorSignature, message, key: newKey)
            else { throw BackendError.invalidSignature }
            guard var secondFactor = try tx.secondFactor(deviceId: request.deviceId) else { throw BackendError.secondFactorUnknown }
            if type == .changePin {
                secondFactor.pinPublicKey = newKey
                secondFactor.failedAttempts = 0
                secondFactor.isBlocked = false
                secondFactor.penalisedUntil = nil
            } else {
                secondFactor.biometricPublicKey = newKey
            }
            secondFactor.updatedAt = time
            try tx.update(secondFactor)
            _ = try record.handle(.factorSet, at: time)
            try tx.update(record)
            let policy = try self.secondFactorPolicy(tx)
            return (
                record,
                SecondFactorResponse(
                    result: .accepted, secondFactor: Self.wireState(of: secondFactor, policy: policy, now: time),
                    accountId: nil, challenge: nil)
            )
        }
        notify(record)
        return response
    }

    /// HEADLESS_UPGRADE: the account key is replaced by one the old key vouches for.
    public func rotateKey(sessionId: String, _ request: RotateKeyRequest) async throws(BackendError) {
        let time = now()
        let newKey = try Self.decodePublicKey(request.newPublicKey, field: "newPublicKey")
        let record = try await write { tx in
            var record = try Self.activeSession(tx, id: sessionId, device: request.deviceId, for: .keyRotated, now: time)
            var account = try Self.deviceAccount(tx, id: request.accountId, device: request.deviceId)
            guard account.userId == record.userId, record.accountId == nil || record.accountId == account.id else {
                throw BackendError.accountNotFound(request.accountId)
            }
            let message = SignedMessage.rotate(
                sessionId: record.id, challenge: record.challenge, accountId: account.id,
                newPublicKey: request.newPublicKey)
            guard Self.verify(request.oldKeySignature, message, key: account.publicKey),
                Self.verify(request.newKeySignature, message, key: newKey)
            else { throw BackendError.invalidSignature }
            account.publicKey = newKey
            try tx.update(account)
            record.accountId = account.id
            _ = try record.handle(.keyRotated, at: time)
            try tx.update(record)
            return record
        }
        notify(record)
    }
}
