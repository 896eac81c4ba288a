import BackendAPI
import Foundation
import OutOfBand
import TestDoubles
import Testing

@testable import Backend

/// A device id is public (sessions and pages show it): knowing it must let a stranger neither
/// count wrong PINs against that device nor end its sessions (security figure 27).
@Suite struct DeviceProofTests {
    let victim = ScriptedDevice()
    let stranger = ScriptedDevice()

    func makeBackend(on store: BackendStore) async throws -> DemoBackend {
        try await DemoBackend(store: store, baseURL: { "http://127.0.0.1:8080" })
    }

    func token(_ session: BackendSession) throws -> String {
        try OutOfBandDecoder.decode(qrText: session.qrText).redeemData.token
    }

    /// The victim's next wrong PIN is counted as its first: nothing before it was.
    func expectNoFailuresCounted(_ backend: DemoBackend, account: String) async throws {
        let (session, challenge) = try await victim.confirmedSession(backend, user: "alice", account: account)
        let answer = try await victim.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
        #expect(answer.result == .rejected)
        #expect(answer.secondFactor.failedAttempts == 1)
    }

    @Test(arguments: TestEngine.available) func enrolmentsRedeemedWithAnotherDevicesIdAreRefused(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: try await engine.open(BackendStore.self))
        let account = try await victim.enrol(backend, user: "alice", pin: "260418")
        for _ in 1...3 {
            let session = try await backend.createSession(type: .enrol, userId: "mallory", displayName: nil)
            let refused = await #expect(throws: BackendError.self) {
                try await backend.redeem(stranger.redeemRequest(token: try token(session), deviceId: victim.id))
            }
            #expect(refused?.code == "DEVICE_KEY_MISMATCH")
            #expect(refused?.sessionId == session.id)
            #expect(try await backend.session(id: session.id).status == .pending)
        }
        // a redeem signed by another key than the one it presents proves nothing either
        let session = try await backend.createSession(type: .enrol, userId: "mallory", displayName: nil)
        var forged = stranger.redeemRequest(token: try token(session))
        forged.devicePublicKey = Base64URL.encode(victim.deviceKey.publicKey)
        await #expect(throws: BackendError.invalidSignature) { try await backend.redeem(forged) }
        try await expectNoFailuresCounted(backend, account: account)
    }

    @Test(arguments: TestEngine.available) func aStrangerCannotProveAPinInTheVictimsOwnSession(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: try await engine.open(BackendStore.self))
        let account = try await victim.enrol(backend, user: "alice", pin: "260418")
        let session = try await backend.createSession(type: .enrol, userId: "alice", displayName: nil)
        let redeemed = try await backend.redeem(victim.redeemRequest(token: try token(session)))
        // the session id and device id are both known; the stranger signs with its own key
        let confirm = SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: "")
        await #expect(throws: BackendError.invalidSignature) {
            try await backend.confirm(
                sessionId: redeemed.sessionId,
                ConfirmRequest(
                    deviceId: victim.id, accountId: nil, signature: nil, deviceSignature: stranger.deviceSignature(confirm)))
        }
        let confirmed = try await backend.confirm(
            sessionId: redeemed.sessionId,
            ConfirmRequest(
                deviceId: victim.id, accountId: nil, signature: nil, deviceSignature: victim.deviceSignature(confirm)))
        let key = Base64URL.encode(stranger.accountKey.publicKey)
        let message = SignedMessage.enrol(sessionId: redeemed.sessionId, challenge: confirmed.challenge, accountPublicKey: key)
        let madeUpPin = try stranger.pinKey("999999")
        for _ in 1...3 {
            await #expect(throws: BackendError.invalidSignature) {
                try await backend.enrol(
                    sessionId: redeemed.sessionId,
                    EnrolRequest(
                        deviceId: victim.id, accountPublicKey: key, accountSignature: Base64URL.encode(stranger.accountKey.sign(message)),
                        pinPublicKey: Base64URL.encode(madeUpPin.publicKey), pinSignature: Base64URL.encode(madeUpPin.sign(message)),
                        deviceName: nil, fcmToken: nil, deviceSignature: stranger.deviceSignature(message)))
            }
        }
        #expect(try await backend.session(id: session.id).status == .confirmed)
        try await expectNoFailuresCounted(backend, account: account)
    }

    /// A device registered before devices had keys: its wrong PINs are not counted until a right
    /// PIN binds the key it uses; from then on only that key may redeem for it.
    @Test(arguments: TestEngine.available) func aDeviceWithoutAKeyIsBoundByItsNextRightPin(on engine: TestEngine) async throws {
        let store = try await engine.open(BackendStore.self)
        let backend = try await makeBackend(on: store)
        let account = try await victim.enrol(backend, user: "alice", pin: "260418")
        try await store.database.write { sql in try sql.execute("UPDATE secondFactorAccount SET devicePublicKey = NULL", []) }
        for _ in 1...3 {
            let session = try await backend.createSession(type: .enrol, userId: "mallory", displayName: nil)
            let redeemed = try await backend.redeem(stranger.redeemRequest(token: try token(session), deviceId: victim.id))
            let confirm = SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: "")
            let confirmed = try await backend.confirm(
                sessionId: redeemed.sessionId,
                ConfirmRequest(
                    deviceId: victim.id, accountId: nil, signature: nil, deviceSignature: stranger.deviceSignature(confirm)))
            let key = Base64URL.encode(stranger.accountKey.publicKey)
            let message = SignedMessage.enrol(sessionId: redeemed.sessionId, challenge: confirmed.challenge, accountPublicKey: key)
            let madeUpPin = try stranger.pinKey("999999")
            let answer = try await backend.enrol(
                sessionId: redeemed.sessionId,
                EnrolRequest(
                    deviceId: victim.id, accountPublicKey: key, accountSignature: Base64URL.encode(stranger.accountKey.sign(message)),
                    pinPublicKey: Base64URL.encode(madeUpPin.publicKey), pinSignature: Base64URL.encode(madeUpPin.sign(message)),
                    deviceName: nil, fcmToken: nil, deviceSignature: stranger.deviceSignature(message)))
            #expect(answer.result == .rejected)
            #expect(answer.secondFactor.failedAttempts == 0)
        }
        let (session, challenge) = try await victim.confirmedSession(backend, user: "alice", account: account)
        #expect(try await victim.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418").result == .accepted)
        let later = try await backend.createSession(type: .enrol, userId: "mallory", displayName: nil)
        let refused = await #expect(throws: BackendError.self) {
            try await backend.redeem(stranger.redeemRequest(token: try token(later), deviceId: victim.id))
        }
        #expect(refused?.code == "DEVICE_KEY_MISMATCH")
        try await expectNoFailuresCounted(backend, account: account)
    }

    @Test(arguments: TestEngine.available) func onlyTheDeviceEndsItsSessionAndOnlyWithAPhonesReason(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: try await engine.open(BackendStore.self))
        let account = try await victim.enrol(backend, user: "alice", pin: "260418")
        let (session, _) = try await victim.confirmedSession(backend, user: "alice", account: account)
        let blocked = SignedMessage.abandon(sessionId: session, code: "PIN_BLOCKED")
        await #expect(throws: BackendError.invalidSignature) {
            try await backend.abandon(
                sessionId: session,
                AbandonRequest(
                    deviceId: victim.id, code: "PIN_BLOCKED", deviceSignature: stranger.deviceSignature(blocked)))
        }
        await #expect(throws: BackendError.invalidSignature) {
            try await backend.abandon(sessionId: session, AbandonRequest(deviceId: victim.id, code: "PIN_BLOCKED", deviceSignature: ""))
        }
        let invented = SignedMessage.abandon(sessionId: session, code: "ACCOUNT_HACKED")
        await #expect(throws: BackendError.invalid("code", "must be one of NO_ACCOUNTS_FOR_SERVER, PIN_BLOCKED, PIN_LOCKED, USER_CANCELED")) {
            try await backend.abandon(
                sessionId: session,
                AbandonRequest(
                    deviceId: victim.id, code: "ACCOUNT_HACKED", deviceSignature: victim.deviceSignature(invented)))
        }
        #expect(try await backend.session(id: session).status == .confirmed)
        // a signature over another code does not carry over
        await #expect(throws: BackendError.invalidSignature) {
            try await backend.abandon(
                sessionId: session,
                AbandonRequest(
                    deviceId: victim.id, code: "USER_CANCELED", deviceSignature: victim.deviceSignature(blocked)))
        }
        let cancel = SignedMessage.abandon(sessionId: session, code: "USER_CANCELED")
        try await backend.abandon(
            sessionId: session,
            AbandonRequest(
                deviceId: victim.id, code: "USER_CANCELED", deviceSignature: victim.deviceSignature(cancel)))
        let ended = try await backend.session(id: session)
        #expect(ended.status == .canceled)
        #expect(ended.failure == "USER_CANCELED")
    }
}
