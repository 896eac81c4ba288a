import Backend
import BackendAPI
import Foundation
import OutOfBand
import TestDoubles
import Testing

/// Seed 001: "depending on the configuration … the session confirmation or second factor step
/// might be skipped". The backend sets it per session or by its server flags' defaults, and a
/// login whose second factor is skipped ends with its confirmation.
@Suite struct SkippedStepsTests {
    func makeBackend(on engine: TestEngine) async throws -> DemoBackend {
        try await DemoBackend(store: try await engine.open(BackendStore.self), baseURL: { "http://127.0.0.1:8080" })
    }

    @Test(arguments: TestEngine.available) func aLoginWithoutSecondFactorIsLoggedInByItsConfirmation(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let created = try await backend.createSession(type: .login, userId: "alice", displayName: nil, skipSecondFactor: true)
        let redeemed = try await device.redeem(backend, created)
        #expect(redeemed.skipSecondFactor == true)
        #expect(redeemed.skipConfirmation == nil)
        let message = SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: account)
        _ = try await backend.confirm(
            sessionId: redeemed.sessionId,
            ConfirmRequest(
                deviceId: device.id, accountId: account, signature: Base64URL.encode(device.accountKey.sign(message)),
                deviceSignature: device.deviceSignature(message)))
        let session = try await backend.session(id: created.id)
        #expect(session.status == .loggedin)
        #expect(session.accountId == account)

        // the usual login still needs its second factor after the confirmation
        let (usual, _) = try await device.confirmedSession(backend, user: "alice", account: account)
        #expect(try await backend.session(id: usual).status == .confirmed)
    }

    @Test(arguments: TestEngine.available) func theServerFlagsAreTheDefaultsOfTheSessionsThatDoNotSay(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        _ = try await device.enrol(backend, user: "alice", pin: "260418")
        _ = try await backend.setServerFlags(["SKIP_CONFIRMATION": true, "SKIP_SECOND_FACTOR": true])
        let login = try await device.redeem(backend, try await backend.createSession(type: .login, userId: "alice", displayName: nil))
        #expect(login.skipConfirmation == true && login.skipSecondFactor == true)
        let transaction = try await device.redeem(
            backend, try await backend.createSession(type: .transaction, userId: "alice", displayName: nil, transaction: "Pay 1 EUR"))
        #expect(transaction.skipConfirmation == true && transaction.skipSecondFactor == nil)
        let enrol = try await ScriptedDevice().redeem(backend, try await backend.createSession(type: .enrol, userId: "bob", displayName: nil))
        #expect(enrol.skipConfirmation == nil && enrol.skipSecondFactor == nil)
        // a session that says wins over the default
        let asked = try await device.redeem(
            backend,
            try await backend.createSession(type: .login, userId: "alice", displayName: nil, skipConfirmation: false, skipSecondFactor: false))
        #expect(asked.skipConfirmation == nil && asked.skipSecondFactor == nil)
    }

    @Test(
        arguments: [
            (WireSessionType.enrol, true, nil), (.enrol, nil, true), (.transaction, nil, true), (.upgrade, true, nil),
        ] as [(WireSessionType, Bool?, Bool?)])
    func aStepThatCannotBeSkippedIsRefusedAndStartsNothing(type: WireSessionType, confirmation: Bool?, secondFactor: Bool?) async throws {
        let backend = try await makeBackend(on: .sqlite)
        _ = try await ScriptedDevice().enrol(backend, user: "alice", pin: "260418")
        let before = try await backend.recentSessions().count
        let error = await #expect(throws: BackendError.self) {
            try await backend.createSession(
                type: type, userId: "alice", displayName: nil, transaction: type == .transaction ? "Pay 1 EUR" : nil,
                skipConfirmation: confirmation, skipSecondFactor: secondFactor)
        }
        #expect(error?.code == "INVALID_FIELD")
        #expect(try await backend.recentSessions().count == before)
    }
}
