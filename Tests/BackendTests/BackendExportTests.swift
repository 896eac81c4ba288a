import Backend
import Foundation
import StateExport
import TestDoubles
import Testing

/// An export's backend loaded over another store, on either engine, is the same backend: the
/// phones it knew log in there with the PINs and keys they had, counted as before.
@Suite struct BackendExportTests {
    static let pin = OfflineOTPLoginTests.pin

    func makeBackend(on store: BackendStore) async throws -> DemoBackend {
        try await DemoBackend(store: store, baseURL: { "http://127.0.0.1:8080" })
    }

    @Test(arguments: TestEngine.available) func aBackendLoadedOverAnotherIsTheSameBackend(on engine: TestEngine) async throws {
        let source = try await engine.open(BackendStore.self)
        let before = try await makeBackend(on: source)
        _ = try await before.setServerFlags(["ENABLE_OTP": true])
        _ = try await before.setSecondFactorPolicy(SecondFactorPolicy(maxAttempts: 5, penalties: [0, 0, 60]))
        let alice = try await OfflineOTPLoginTests.OTPDevice.enrol(before)
        let (device, account) = (alice.device, alice.account)
        var (session, challenge) = try await device.confirmedSession(before, user: "alice", account: account)
        _ = try await device.provePin(before, session: session, challenge: challenge, account: account, pin: "111000")
        let exported = try await source.exported()

        // the store it is loaded over has a key, a user and a session of its own, all gone after
        let target = try await engine.open(BackendStore.self)
        let other = try await makeBackend(on: target)
        let bob = ScriptedDevice()
        let (bobsSession, _) = try await bob.confirmedSession(other, user: "bob", account: try await bob.enrol(other, user: "bob", pin: Self.pin))
        let state = ExportedState(
            phones: [], backend: exported.backend,
            secrets: .init(
                phones: [:], accounts: [:], serverSecretKey: exported.serverSecretKey, backendOTPKeys: exported.otpKeys,
                pinPublicKeys: exported.pinPublicKeys))
        try await target.load(state, replacing: true, at: Date())

        let loaded = try await target.exported()
        #expect(loaded.backend == exported.backend)
        #expect(loaded.serverSecretKey == exported.serverSecretKey)
        #expect(loaded.otpKeys == exported.otpKeys && loaded.otpKeys.count == 1)
        #expect(loaded.pinPublicKeys == exported.pinPublicKeys)
        let after = try await makeBackend(on: target)
        await #expect(throws: BackendError.self) { try await after.session(id: bobsSession) }
        (session, challenge) = try await device.confirmedSession(after, user: "alice", account: account)
        let wrong = try await device.provePin(after, session: session, challenge: challenge, account: account, pin: "111000")
        #expect(wrong.secondFactor.failedAttempts == 2)
        (session, challenge) = try await device.confirmedSession(after, user: "alice", account: account)
        #expect(try await device.provePin(after, session: session, challenge: challenge, account: account, pin: Self.pin).result == .accepted)
    }
}
