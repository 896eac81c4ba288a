import AuthFlow
import BackendAPI
import Foundation
import Identifiers
import OTP
import OutOfBand
import Retry
import SodiumKit
import Synchronization

extension PhoneService {
    /// The SDK's DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes): tells every backend the phone has accounts at, under
    /// a retry policy, and keeps the change locally once they all have it. Each attempt reaches
    /// the screen as it happens. With nothing to change it succeeds at once, asking no one. A
    /// failure throws the last refusal (or DEVICE_INFORMATION_CHANGE_FAILED, or
    /// OPERATION_CANCELLED) with every attempt listed.
    public func changeDeviceInformation(
        phoneId: String, _ change: DeviceInformationChange,
        retry: RetryPolicy? = nil
    ) async throws(PhoneError) -> DeviceChangeResult {
        let policy: RetryPolicy
        do { policy = try (retry ?? configuration.deviceChangeRetry).validated() } catch {
            throw PhoneError(.badRequest, error.code, error.message)
        }
        if let name = change.name, let problem = ReadableText.nameProblem(in: name, limit: 64) { throw .invalid("name", problem) }
        if change.disablePushNotifications == true, change.fcmToken != nil {
            throw .invalid("disablePushNotifications", "cannot go with a new fcmToken (a token enables pushes)")
        }
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        if operations[phoneId] != nil {
            throw PhoneError(.conflict, "OPERATION_ACTIVE", "this phone is already changing its device information; wait or cancel it")
        }
        let id = UUID.random().uuidString.lowercased()
        var progress = OperationProgress(
            id: id, kind: "deviceInformationChange", state: .running, maxAttempts: policy.maxRetries + 1,
            attempts: [])
        if change.isEmpty {
            progress.state = .succeeded
            return DeviceChangeResult(progress: progress, deviceInformation: try await deviceInformation(phoneId))
        }
        // one request per backend, signed by the first account there
        var byServer: [String: AccountRecord] = [:]
        for account in accounts where byServer[account.serverURL] == nil { byServer[account.serverURL] = account }
        let targets = Array(byServer.values)
        // like every connection of the phone's, only to servers on its allow-list
        for target in targets { try device.checkAllowed(URL(string: target.serverURL)) }
        // privacyIDEA's push tokens learn a new FCM token too (its `_handle_firebase_update`)
        let pushTokens = change.fcmToken == nil ? [] : try await store.pushTokens(phoneId: phoneId)
        let observer = configuration.retryObserver
        let retrying = Retrying(
            policy: policy, sleep: configuration.sleep, random: configuration.random, onRetry: { observer("deviceInformation") })
        let task = Task { [weak self] () -> Result<DeviceChangeResult, PhoneError> in
            guard let self else { return .failure(PhoneError(.unavailable, "PHONE_GONE", "the phone service stopped")) }
            return await self.runDeviceChange(
                change, phone: phone, targets: targets, pushTokens: pushTokens, retrying: retrying, progress: progress)
        }
        operations[phoneId] = task
        events.send(.operation(progress), to: phoneId)
        let result = await task.value
        operations[phoneId] = nil
        return try result.get()
    }

    /// Cancels the phone's retried operation; it ends as `cancelled` with the attempts made.
    public func cancelOperation(phoneId: String) async throws(PhoneError) {
        _ = try await phoneAndAccounts(phoneId)
        guard let task = operations[phoneId] else { throw PhoneError(.conflict, "NO_OPERATION", "this phone is not retrying anything") }
        task.cancel()
    }

    public func deviceInformation(_ phoneId: String) async throws(PhoneError) -> DeviceInformationView {
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        return DeviceInformationView(
            name: phone.name, deviceId: phone.deviceId, fcmToken: phone.fcmToken,
            fid: FirebaseInstallationID.of(token: phone.fcmToken), pushNotifications: !phone.pushNotificationsDisabled,
            accounts: accounts.map(\.summary))
    }

    /// The platform refreshed the phone's FCM token (the caller retires the old one at the push
    /// service): the phone keeps the new one and returns both.
    public func refreshFCMToken(phoneId: String) async throws(PhoneError) -> (old: String, new: String) {
        let old = try await phoneAndAccounts(phoneId).0.fcmToken
        let new = try Device.makeFCMToken()
        _ = try await changePhone(phoneId) { phone throws(PhoneError) in phone.fcmToken = new }
        return (old, new)
    }

    private func runDeviceChange(
        _ change: DeviceInformationChange, phone: PhoneRecord, targets: [AccountRecord], pushTokens: [PushTokenRecord],
        retrying: Retrying, progress start: OperationProgress
    ) async -> Result<DeviceChangeResult, PhoneError> {
        progresses[phone.id] = start
        defer { progresses[phone.id] = nil }
        let network = device.network
        let now = now
        let lastRefusal = Mutex<PhoneError?>(nil)
        let (done, records) = await retrying.run { _ -> AttemptOutcome<Bool> in
            do throws(PhoneError) {
                for account in targets {
                    let key = try SDKKeys.accountKey([account], account.id)
                    var request = DeviceInformationChangeRequest(
                        deviceId: phone.deviceId, accountId: account.id, name: change.name, fcmToken: change.fcmToken,
                        disablePushNotifications: change.disablePushNotifications, timestamp: now(), signature: "")
                    request.signature = Base64URL.encode(key.sign(SignedMessage.deviceChange(request)))
                    let _: DeviceInformation = try await network.post(account.serverURL, BackendRoutes.devices, request, from: phone.id)
                }
                if let fcmToken = change.fcmToken {
                    for token in pushTokens { try await self.privacyIDEA.updateFCMToken(token, to: fcmToken, at: now()) }
                }
                return .success(true)
            } catch {
                lastRefusal.withLock { $0 = error }
                let reason = "\(error.code): \(error.message)"
                return error.isRetryable ? .retryable(reason: reason, retryAfter: error.retryAfter) : .failure(reason: reason)
            }
        } observe: { [weak self] record, nextWait in
            await self?.attempted(record, nextWait: nextWait, phoneId: phone.id)
        }
        var progress = progresses[phone.id] ?? start
        progress.nextAttemptAt = nil
        progress.nextAttemptIn = nil
        guard done == true else {
            let listed = records.map { "attempt \($0.number): \($0.outcome)" }.joined(separator: "; ")
            let refusal = lastRefusal.withLock { $0 }
            var error: PhoneError
            if Task.isCancelled {
                progress.state = .cancelled
                error = PhoneError(.conflict, "OPERATION_CANCELLED", "the device information change was cancelled after: \(listed)")
            } else if let refusal, !refusal.isRetryable {
                progress.state = .failed
                error = refusal
            } else {
                progress.state = .failed
                error = PhoneError(
                    .badGateway, "DEVICE_INFORMATION_CHANGE_FAILED",
                    "the device information did not change after \(records.count) attempt(s): \(listed)", sdkCode: 70)
            }
            progress.error = error.flowError
            error.attempts = progress.attempts
            events.send(.operation(progress), to: phone.id)
            return .failure(error)
        }
        progress.state = .succeeded
        do {
            try await keep(change, phoneId: phone.id)
            if let fcmToken = change.fcmToken { try await store.setFCMToken(fcmToken, ofPushTokensOf: phone.id) }
        } catch { return .failure(error) }
        events.send(.operation(progress), to: phone.id)
        do { return .success(DeviceChangeResult(progress: progress, deviceInformation: try await deviceInformation(phone.id))) } catch {
            return .failure(error)
        }
    }

    /// One attempt ended: the screen learns what happened and when the next one starts.
    private func attempted(_ record: AttemptRecord, nextWait: Duration?, phoneId: String) {
        guard var progress = progresses[phoneId] else { return }
        progress.attempts.append(
            OperationProgress.Attempt(
                number: record.number, waitedBefore: record.waitedBefore.seconds,
                outcome: record.outcome))
        progress.state = nextWait == nil ? .running : .waiting
        progress.nextAttemptIn = nextWait?.seconds
        progress.nextAttemptAt = nextWait.map { now().addingTimeInterval($0.seconds) }
        progresses[phoneId] = progress
        events.send(.operation(progress), to: phoneId)
    }

    private func keep(_ change: DeviceInformationChange, phoneId: String) async throws(PhoneError) {
        _ = try await self.changePhone(phoneId) { phone throws(PhoneError) in
            if let name = change.name { phone.name = name.trimmingCharacters(in: .whitespaces) }
            if change.fcmToken != nil { phone.pushNotificationsDisabled = false }
            if change.disablePushNotifications == true { phone.pushNotificationsDisabled = true }
        }
    }
}

extension PhoneService {
    public func localData(phoneId: String) async throws(PhoneError) -> LocalData {
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        let users = Array(Set(accounts.map(\.userId))).sorted()
        return LocalData(
            deviceInformation: try await deviceInformation(phoneId), accounts: accounts.map(\.summary),
            authenticators: [
                Authenticator(aaid: "PIN", userIds: users, registered: phone.pinSalt != nil && !accounts.isEmpty, invalidated: nil),
                Authenticator(
                    aaid: "BIOMETRICS", userIds: users, registered: phone.hasEnabledBiometrics,
                    invalidated: phone.hasEnabledBiometrics ? phone.validBiometricKey == nil : nil),
            ])
    }

    /// Nevis's deleteAuthenticator: local data only, the backend keeps the accounts. `PIN`
    /// removes the user's accounts (their keys are what the PIN unlocks); `BIOMETRICS` removes
    /// the biometric key; no AAID removes both.
    public func deleteAuthenticator(phoneId: String, userId: String, aaid: String?) async throws(PhoneError) -> LocalData {
        try await sdk.refuseDuringFlow(phoneId)
        guard aaid == nil || aaid == "PIN" || aaid == "BIOMETRICS" else { throw .invalid("aaid", "must be PIN or BIOMETRICS") }
        let (_, accounts) = try await phoneAndAccounts(phoneId)
        guard accounts.contains(where: { $0.userId == userId }) else {
            throw PhoneError(.notFound, "USER_NOT_FOUND", "this phone has no account for the user \(userId)")
        }
        _ = try await changePhone(phoneId, removing: aaid == "BIOMETRICS" ? nil : .ofUser(userId)) { phone throws(PhoneError) in
            if aaid != "PIN" {
                phone.biometricSecretKey = nil
                phone.biometricKeySetVersion = nil
            }
        }
        return try await localData(phoneId: phoneId)
    }

    /// The SDK's account removal: at the backend (signed by the account key), then here.
    public func removeAccount(phoneId: String, accountId: String) async throws(PhoneError) -> LocalData {
        try await sdk.refuseDuringFlow(phoneId)
        let (phone, accounts) = try await phoneAndAccounts(phoneId)
        guard let account = accounts.first(where: { $0.id == accountId }) else {
            throw PhoneError(.notFound, "ACCOUNT_NOT_FOUND", "this phone has no account \(accountId)")
        }
        try device.checkAllowed(URL(string: account.serverURL))
        let key = try SDKKeys.accountKey(accounts, accountId)
        let time = now()
        let _: Acknowledged = try await device.network.post(
            account.serverURL, BackendRoutes.accountRemoval,
            AccountRemovalRequest(
                deviceId: phone.deviceId, accountId: accountId, timestamp: time,
                signature: Base64URL.encode(key.sign(SignedMessage.removeAccount(accountId: accountId, timestamp: time)))), from: phoneId)
        _ = try await changePhone(phoneId, removing: .one(accountId)) { _ throws(PhoneError) in }
        return try await localData(phoneId: phoneId)
    }
}
