import Backend
import BackendAPI
import Foundation
import OutOfBand
import SodiumKit
import TestDoubles
import Testing

/// Seeds 000 and 002: an enrolment may register a biometric key together with the device's first
/// PIN. The key must prove itself over the enrolment's bytes, and a device whose PIN is already
/// registered adds biometrics only with ADD_BIOMETRICS.
@Suite struct EnrolBiometricsTests {
    func makeBackend(on engine: TestEngine) async throws -> DemoBackend {
        try await DemoBackend(store: try await engine.open(BackendStore.self), baseURL: { "http://127.0.0.1:8080" })
    }

    /// Redeems and confirms an enrolment; the request that would enrol with `biometric`.
    func enrolment(
        _ backend: DemoBackend, _ device: ScriptedDevice, user: String, biometric: Ed25519.KeyPair, signedBy: Ed25519.KeyPair? = nil
    ) async throws -> (session: String, request: EnrolRequest) {
        let redeemed = try await device.redeem(backend, try await backend.createSession(type: .enrol, userId: user, displayName: nil))
        let confirm = SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: "")
        let confirmed = try await backend.confirm(
            sessionId: redeemed.sessionId,
            ConfirmRequest(deviceId: device.id, accountId: nil, signature: nil, deviceSignature: device.deviceSignature(confirm)))
        let accountKey = try Ed25519.KeyPair.generate()
        let publicKey = Base64URL.encode(accountKey.publicKey)
        let message = SignedMessage.enrol(sessionId: redeemed.sessionId, challenge: confirmed.challenge, accountPublicKey: publicKey)
        let pinKey = try device.pinKey("260418")
        return (
            redeemed.sessionId,
            EnrolRequest(
                deviceId: device.id, accountPublicKey: publicKey, accountSignature: Base64URL.encode(accountKey.sign(message)),
                pinPublicKey: Base64URL.encode(pinKey.publicKey), pinSignature: Base64URL.encode(pinKey.sign(message)),
                deviceName: "scripted", fcmToken: nil, deviceSignature: device.deviceSignature(message),
                biometricPublicKey: Base64URL.encode(biometric.publicKey),
                biometricSignature: Base64URL.encode((signedBy ?? biometric).sign(message)))
        )
    }

    @Test(arguments: TestEngine.available) func aBiometricKeyThatDoesNotProveItselfIsRefusedAndEnrolsNothing(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let (session, forged) = try await enrolment(
            backend, device, user: "alice", biometric: try .generate(), signedBy: try .generate())
        let error = await #expect(throws: BackendError.self) { try await backend.enrol(sessionId: session, forged) }
        #expect(error?.code == "INVALID_SIGNATURE")
        #expect(try await backend.session(id: session).status == .confirmed)

        var half = forged
        half.biometricSignature = nil
        let refused = await #expect(throws: BackendError.self) { try await backend.enrol(sessionId: session, half) }
        #expect(refused?.code == "INVALID_FIELD")
        #expect(try await backend.session(id: session).status == .confirmed)
    }

    @Test(arguments: TestEngine.available) func aDeviceWithAPinAddsBiometricsOnlyWithAddBiometrics(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        _ = try await device.enrol(backend, user: "alice", pin: "260418")
        let (session, request) = try await enrolment(backend, device, user: "bob", biometric: try .generate())
        let error = await #expect(throws: BackendError.self) { try await backend.enrol(sessionId: session, request) }
        #expect(error?.code == "INVALID_FIELD")
        #expect(error?.message.contains("ADD_BIOMETRICS") == true)
        #expect(try await backend.session(id: session).status == .confirmed)
    }
}
