import Backend
import BackendAPI
import Foundation
import TestDoubles
import Testing

/// A token that can no longer start its session is refused by name, and the refusal names the
/// token's session (the timeline files it there); an enrolment QR code that expired or was used
/// says so as nextAuth does (docs/behaviour.md#error-codes, 41).
@Suite struct RedeemRefusalTests {
    let clock = TestClock()

    func makeBackend(on engine: TestEngine) async throws -> DemoBackend {
        let clock = clock
        return try await DemoBackend(store: try await engine.open(BackendStore.self), baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
    }

    @Test(arguments: TestEngine.available) func anExpiredOrUsedEnrolmentQRCodeIsEnrolQRExpired(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let used = try await backend.createSession(type: .enrol, userId: "alice", displayName: nil)
        _ = try await device.redeem(backend, used)
        let again = await #expect(throws: BackendError.self) { try await ScriptedDevice().redeem(backend, used) }
        #expect(again?.code == "ENROL_QR_EXPIRED")
        #expect(again?.sessionId == used.id)

        let late = try await backend.createSession(type: .enrol, userId: "bob", displayName: nil)
        clock.advance(301)
        let expired = await #expect(throws: BackendError.self) { try await device.redeem(backend, late) }
        #expect(expired?.code == "ENROL_QR_EXPIRED")
        #expect(expired?.sessionId == late.id)
        #expect(try await backend.session(id: late.id).status == .expired)
    }

    @Test(arguments: TestEngine.available) func anExpiredOrUsedLoginTokenKeepsItsNevisName(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        #expect(!account.isEmpty)
        let used = try await backend.createSession(type: .login, userId: "alice", displayName: nil)
        _ = try await device.redeem(backend, used)
        let again = await #expect(throws: BackendError.self) { try await device.redeem(backend, used) }
        #expect(again?.code == "TOKEN_ALREADY_REDEEMED")
        #expect(again?.sessionId == used.id)

        let late = try await backend.createSession(type: .login, userId: "alice", displayName: nil)
        clock.advance(301)
        let expired = await #expect(throws: BackendError.self) { try await device.redeem(backend, late) }
        #expect(expired?.code == "TOKEN_EXPIRED")
        #expect(expired?.sessionId == late.id)
    }
}
