import Backend
import BackendAPI
import Foundation
import OutOfBand
import SodiumKit

/// A device speaking the wire directly to the backend, without HTTP: enough to drive the
/// Second Factor Server's counting from many sessions at once.
public struct ScriptedDevice: Sendable {
    /// The backend did not enrol the account.
    public struct Refused: Error {}

    public init() {}

    public let id = UUID().uuidString
    public let accountKey = try! Ed25519.KeyPair.generate()
    /// The device's own key: it signs redeem, an enrolment's confirm and proof, and abandon.
    public let deviceKey = try! Ed25519.KeyPair.generate()
    let salt = [UInt8](repeating: 3, count: PinKeyDerivation.saltLength)
    let derivation = PinKeyDerivation(profile: .fast)

    public func pinKey(_ pin: String) throws -> Ed25519.KeyPair {
        try derivation.keyPair(pin: GuardedBytes(copying: Array(pin.utf8)), salt: salt)
    }

    public func redeem(_ backend: DemoBackend, _ session: BackendSession) async throws -> RedeemResponse {
        let payload = try OutOfBandDecoder.decode(qrText: session.qrText)
        return try await backend.redeem(redeemRequest(token: payload.redeemData.token))
    }

    public func redeemRequest(token: String, deviceId: String? = nil) -> RedeemRequest {
        let deviceId = deviceId ?? id
        let publicKey = Base64URL.encode(deviceKey.publicKey)
        return RedeemRequest(
            token: token, deviceId: deviceId, devicePublicKey: publicKey,
            deviceSignature: Base64URL.encode(
                deviceKey.sign(SignedMessage.redeem(token: token, deviceId: deviceId, devicePublicKey: publicKey))))
    }

    /// The device key's signature over `message`, as the wire carries it.
    public func deviceSignature(_ message: [UInt8]) -> String {
        Base64URL.encode(deviceKey.sign(message))
    }

    /// Enrols `user` with `pin` and returns the account id.
    public func enrol(_ backend: DemoBackend, user: String, pin: String) async throws -> String {
        guard let account = try await enrolment(backend, user: user, pin: pin).answer.accountId else { throw Refused() }
        return account
    }

    /// Enrols `user` with `pin`, offering the backend an OTP public key when given one; returns
    /// the backend's answer and the session it was enrolled in.
    public func enrolment(
        _ backend: DemoBackend, user: String, pin: String,
        otpPublicKey: [UInt8]? = nil
    ) async throws -> (answer: SecondFactorResponse, redeemed: RedeemResponse) {
        let redeemed = try await redeem(backend, try await backend.createSession(type: .enrol, userId: user, displayName: nil))
        let confirmed = try await backend.confirm(
            sessionId: redeemed.sessionId,
            ConfirmRequest(
                deviceId: id, accountId: nil, signature: nil,
                deviceSignature: deviceSignature(SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: ""))))
        let publicKey = Base64URL.encode(accountKey.publicKey)
        let message = SignedMessage.enrol(sessionId: redeemed.sessionId, challenge: confirmed.challenge, accountPublicKey: publicKey)
        let pinKey = try pinKey(pin)
        let answer = try await backend.enrol(
            sessionId: redeemed.sessionId,
            EnrolRequest(
                deviceId: id, accountPublicKey: publicKey, accountSignature: Base64URL.encode(accountKey.sign(message)),
                pinPublicKey: Base64URL.encode(pinKey.publicKey), pinSignature: Base64URL.encode(pinKey.sign(message)),
                deviceName: "scripted", fcmToken: nil, otpPublicKey: otpPublicKey.map(Base64URL.encode), deviceSignature: deviceSignature(message)))
        return (answer, redeemed)
    }

    /// Starts a login (or a transaction) and confirms it; returns the session id and the next challenge.
    public func confirmedSession(
        _ backend: DemoBackend, user: String, account: String, type: WireSessionType = .login,
        transaction: String? = nil
    ) async throws -> (String, String) {
        let created = try await backend.createSession(type: type, userId: user, displayName: nil, transaction: transaction)
        let redeemed = try await redeem(backend, created)
        let message = SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: account)
        let confirmed = try await backend.confirm(
            sessionId: redeemed.sessionId,
            ConfirmRequest(
                deviceId: id, accountId: account, signature: Base64URL.encode(accountKey.sign(message)), deviceSignature: deviceSignature(message)))
        return (redeemed.sessionId, confirmed.challenge)
    }

    public func provePin(
        _ backend: DemoBackend, session: String, challenge: String, account: String,
        pin: String
    ) async throws -> SecondFactorResponse {
        let message = SignedMessage.verifySecondFactor(sessionId: session, challenge: challenge, accountId: account)
        return try await backend.verifySecondFactor(
            sessionId: session,
            VerifyPinRequest(
                deviceId: id, accountId: account, accountSignature: Base64URL.encode(accountKey.sign(message)),
                pinSignature: Base64URL.encode(try pinKey(pin).sign(message))))
    }
}
