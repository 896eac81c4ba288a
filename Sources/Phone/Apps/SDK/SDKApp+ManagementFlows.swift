import AuthFlow
import BackendAPI
import Foundation
import Identifiers
import OTP
import OutOfBand
import SodiumKit

/// The flows a phone starts itself for its device's second factors (CHANGE_PIN, ADD_BIOMETRICS,
/// REMOVE_BIOMETRICS), and the account key rotation a backend asks for (HEADLESS_UPGRADE).
extension SDKApp {
    /// The flows the phone starts itself (docs/behaviour.md#second-factor-management: sfChangePIN, sfBiometricsAdd,
    /// sfBiometricsRemove). The device's factors live at the server of its first account.
    public func startManagement(phoneId: String, type: FlowType) async throws(PhoneError) -> Flow {
        let wireType: WireSessionType
        switch type {
        case .changePin: wireType = .changePin
        case .addBiometrics: wireType = .addBiometrics
        case .removeBiometrics: wireType = .removeBiometrics
        default: throw .invalid("type", "must be CHANGE_PIN, ADD_BIOMETRICS or REMOVE_BIOMETRICS; the others start from the server")
        }
        let (phone, accounts) = try await device.phoneAndAccounts(phoneId)
        try refuseDuringFlow(phoneId)
        guard phones[phoneId]?.starting != true else { throw .flowActive }
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
        try device.checkAllowed(URL(string: account.serverURL))
        phones[phoneId, default: SDKPhone()].starting = true
        defer { phones[phoneId]?.starting = false }
        let key = try SDKKeys.accountKey(accounts, account.id)
        let time = device.now()
        let started: ManagementResponse = try await device.network.post(
            account.serverURL, BackendRoutes.management,
            ManagementRequest(
                deviceId: phone.deviceId, accountId: account.id, type: wireType, timestamp: time,
                signature: Base64URL.encode(key.sign(SignedMessage.management(accountId: account.id, type: wireType, timestamp: time)))),
            from: phoneId)
        let server = WireServer(name: account.serverName, url: account.serverURL, publicKey: Base64URL.encode(Array(account.serverPublicKey)))
        let info = SessionInfo(
            id: started.sessionId, type: type, expiresAt: started.expiresAt,
            server: ServerInfo(server),
            userId: account.userId, preselectedAccountId: account.id)
        let (machine, action) = FlowMachine.start(
            id: UUID.random().uuidString.lowercased(), session: info, accounts: [account.summary],
            phoneHasPin: true, secondFactorAccount: SecondFactorAccount(started.secondFactor),
            options: phone.flowOptions(now: time))
        phones[phoneId, default: SDKPhone()].flow = ActiveFlow(
            machine: machine, sessionId: started.sessionId, serverURL: account.serverURL,
            server: server, challenge: started.challenge)
        await run(action, phoneId: phoneId)
        return phones[phoneId]?.flow?.machine.flow ?? machine.flow
    }

    /// HEADLESS_UPGRADE: a new account key, vouched for by the old one and by itself.
    func rotateAccountKeyAtServer(_ step: FlowStep, accountID: String) async throws(PhoneError) -> FlowAction {
        let (phone, accounts, active) = (step.phone, step.accounts, step.active)
        let phoneId = step.phone.id
        let oldKey = try SDKKeys.accountKey(accounts, accountID)
        let newKey = try SDKKeys.newKeyPair()
        let publicKey = Base64URL.encode(newKey.publicKey)
        let message = SignedMessage.rotate(
            sessionId: active.sessionId, challenge: active.challenge, accountId: accountID,
            newPublicKey: publicKey)
        let _: Acknowledged = try await device.network.post(
            active.serverURL, BackendRoutes.rotate(active.sessionId),
            RotateKeyRequest(
                deviceId: phone.deviceId, accountId: accountID, newPublicKey: publicKey,
                oldKeySignature: Base64URL.encode(oldKey.sign(message)), newKeySignature: Base64URL.encode(newKey.sign(message))), from: phone.id)
        try await device.store.replaceAccountKey(accountId: accountID, Data(newKey.exportSecretKey()))
        return applyOutcome(phoneId) { $0.machine.accountKeyRotated() }
    }
}
