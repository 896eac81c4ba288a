import Backend
import BackendAPI
import Foundation
import TestDoubles
import Testing

@Suite struct SecondFactorPolicyTests {
    let clock = TestClock()

    func makeBackend(on engine: TestEngine, _ database: BackendStore? = nil) async throws -> DemoBackend {
        let clock = clock
        let store = if let database { database } else { try await engine.open(BackendStore.self) }
        return try await DemoBackend(store: store, baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
    }

    /// The Nevis Access App's table, set at run time: no wait after the 1st and 2nd failure, 60 s
    /// after the 3rd, 180 s after the 4th, blocked at the 5th.
    @Test(arguments: TestEngine.available) func theNevisPresetWaitsAfterTheThirdAndFourthAndBlocksAtTheFifth(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        #expect(try await backend.secondFactorPolicy() == .nextAuth)
        #expect(try await backend.setSecondFactorPolicy(.nevis) == .nevis)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        var (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)

        for (failures, wait) in [(1, 0), (2, 0), (3, 60), (4, 180)] {
            let answer = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
            #expect(answer.result == .rejected)
            #expect(answer.secondFactor.failedAttempts == failures)
            #expect(answer.secondFactor.maxAttempts == 5)
            #expect(answer.secondFactor.penalisedFor == wait)
            #expect(answer.secondFactor.penalisedUntil == (wait > 0 ? clock.now().addingTimeInterval(TimeInterval(wait)) : nil))
            #expect(!answer.secondFactor.isBlocked)
            challenge = try #require(answer.challenge)
            clock.advance(TimeInterval(wait))
        }
        let fifth = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
        #expect(fifth.result == .rejected)
        #expect(fifth.secondFactor.isBlocked)
        #expect(fifth.secondFactor.penalisedFor == 0)
        #expect(try await backend.session(id: session).status == .failed)

        // blocked for good: a new login with the right PIN is refused too
        (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        let right = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
        #expect(right.result == .rejected)
        #expect(right.secondFactor.failedAttempts == 5)
    }

    /// Two wrong PINs, the policy changed between them, on a backend over the file at `path`;
    /// the backend is gone when this returns.
    func twoWrongPinsAroundAPolicyChange(_ device: ScriptedDevice, path: String, to custom: SecondFactorPolicy) async throws -> String {
        let backend = try await makeBackend(on: .sqlite, try BackendStore.open(path: path))
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        let first = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
        #expect(first.secondFactor.maxAttempts == 3)

        _ = try await backend.setSecondFactorPolicy(custom)
        let second = try await device.provePin(backend, session: session, challenge: try #require(first.challenge), account: account, pin: "111000")
        #expect(second.secondFactor.failedAttempts == 2)
        #expect(second.secondFactor.maxAttempts == 4)
        #expect(second.secondFactor.penalisedFor == 30)
        return account
    }

    @Test(arguments: TestEngine.available) func aChangedPolicyAppliesFromTheNextPinAndOutlivesARestart(on engine: TestEngine) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let device = ScriptedDevice()
        let custom = SecondFactorPolicy(maxAttempts: 4, penalties: [0, 30])
        let account = try await twoWrongPinsAroundAPolicyChange(device, path: path, to: custom)
        // SQLite removes the write-ahead log when the last connection closes: the first backend is shut.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let reopened = try await makeBackend(on: engine, try BackendStore.open(path: path))
        #expect(try await reopened.secondFactorPolicy() == custom)
        // the counters and the penalty survived too: the right PIN waits out the 30 s
        let (session, challenge) = try await device.confirmedSession(reopened, user: "alice", account: account)
        let early = try await device.provePin(reopened, session: session, challenge: challenge, account: account, pin: "260418")
        #expect(early.result == .penalised)
        #expect(early.secondFactor.failedAttempts == 2)
        #expect(early.secondFactor.penalisedFor == 30)
        clock.advance(30)
        let right = try await device.provePin(reopened, session: session, challenge: try #require(early.challenge), account: account, pin: "260418")
        #expect(right.result == .accepted)
    }

    @Test(arguments: [
        (SecondFactorPolicy(maxAttempts: 0, penalties: []), "maxAttempts"),
        (SecondFactorPolicy(maxAttempts: 101, penalties: []), "maxAttempts"),
        (SecondFactorPolicy(maxAttempts: 3, penalties: [0, 0, 60]), "penalties"),
        (SecondFactorPolicy(maxAttempts: 1, penalties: [10]), "penalties"),
        (SecondFactorPolicy(maxAttempts: 5, penalties: [0, -1]), "entry 2"),
        (SecondFactorPolicy(maxAttempts: 5, penalties: [86_401]), "entry 1"),
    ])
    func aPolicyThatCannotApplyIsRefusedAndChangesNothing(policy: SecondFactorPolicy, named: String) async throws {
        let backend = try await makeBackend(on: .sqlite)
        _ = try await backend.setSecondFactorPolicy(.nevis)
        let error = await #expect(throws: BackendError.self) { try await backend.setSecondFactorPolicy(policy) }
        #expect(error?.code == "INVALID_FIELD")
        #expect(error?.message.contains(named) == true)
        #expect(try await backend.secondFactorPolicy() == .nevis)
    }

    @Test func presetsAreNamed() {
        #expect(SecondFactorPolicy.nextAuth.presetName == "nextAuth")
        #expect(SecondFactorPolicy.nevis.presetName == "nevis")
        #expect(SecondFactorPolicy(maxAttempts: 4, penalties: []).presetName == nil)
    }
}
