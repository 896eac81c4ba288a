import Backend
import BackendAPI
import Foundation
import OutOfBand
import SodiumKit
import TestDoubles
import Testing

@Suite struct SecondFactorServerTests {
    let clock = TestClock()

    func makeBackend(on engine: TestEngine, _ policy: SecondFactorPolicy = .nextAuth) async throws -> DemoBackend {
        let clock = clock
        return try await DemoBackend(
            store: try await engine.open(BackendStore.self), configuration: .init(secondFactorPolicy: policy),
            baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
    }

    @Test(arguments: TestEngine.available) func wrongWrongRightResetsTheCount(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        var (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        for expected in 1...2 {
            let answer = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
            #expect(answer.result == .rejected)
            #expect(answer.secondFactor.failedAttempts == expected)
            challenge = try #require(answer.challenge)
        }
        let right = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
        #expect(right.result == .accepted)
        #expect(right.secondFactor.failedAttempts == 0)
        #expect(try await backend.session(id: session).status == .loggedin)
        (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        #expect(try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418").result == .accepted)
    }

    /// Alice enrolled on a device, then three wrong PINs: her PIN is blocked.
    func enrolAliceAndBlockHerPin(_ backend: DemoBackend) async throws -> (ScriptedDevice, String) {
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        for _ in 1...3 {
            let (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
            _ = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
        }
        return (device, account)
    }

    @Test(arguments: TestEngine.available) func blockedAfterThreeAndTheRightPinIsStillRefused(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let (device, account) = try await enrolAliceAndBlockHerPin(backend)
        let (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        let answer = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
        #expect(answer.result == .rejected)
        #expect(answer.secondFactor.isBlocked)
        #expect(answer.secondFactor.failedAttempts == 3)
    }

    /// Twenty wrong PINs at once from twenty sessions, through two instances sharing one
    /// database (on SQLite, one): exactly three are counted (security figure 2).
    @Test(arguments: TestEngine.available) func concurrentWrongPinsCannotGetMoreTriesThanTheLimit(on engine: TestEngine) async throws {
        let store = try await engine.open(BackendStore.self)
        let clock = clock
        var backends: [DemoBackend] = []
        for instance in [store, try await engine.otherInstance(of: store)] {
            backends.append(try await DemoBackend(store: instance, baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() }))
        }
        let device = ScriptedDevice()
        let account = try await device.enrol(backends[0], user: "alice", pin: "260418")
        var logins: [(String, String)] = []
        for _ in 0..<20 { logins.append(try await device.confirmedSession(backends[0], user: "alice", account: account)) }
        let answers = try await withThrowingTaskGroup(of: SecondFactorResponse.self) { group in
            for (index, (session, challenge)) in logins.enumerated() {
                let backend = backends[index % 2]
                group.addTask { try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.result == .rejected })
        #expect(Set(answers.map(\.secondFactor.failedAttempts)) == [1, 2, 3])
        #expect(answers.filter { $0.secondFactor.isBlocked }.count == 18)  // the third failure and the seventeen refused after it
        #expect(answers.map(\.secondFactor.failedAttempts).max() == 3)
    }

    /// During a penalty an input is refused and nothing is counted (security figure 3).
    @Test(arguments: TestEngine.available) func aPenaltyRefusesInputWithoutCounting(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine, SecondFactorPolicy(maxAttempts: 5, penalties: [0, 60]))
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let (session, firstChallenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        var challenge = firstChallenge
        for _ in 1...2 {
            let answer = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
            challenge = try #require(answer.challenge)
        }
        // Even the right PIN is refused unseen, and the counters stay as they were.
        for (advance, secondsLeft) in [(0.0, 60), (59.0, 1)] {
            clock.advance(advance)
            let refused = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
            #expect(refused.result == .penalised)
            #expect(refused.secondFactor.failedAttempts == 2)
            #expect(refused.secondFactor.penalisedFor == secondsLeft)
            #expect(!refused.secondFactor.isBlocked)
            challenge = try #require(refused.challenge)
        }
        // Once it is over, the same session goes on.
        clock.advance(1)
        let answer = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
        #expect(answer.result == .accepted)
        #expect(answer.secondFactor.failedAttempts == 0)
    }

    @Test(arguments: TestEngine.available) func signaturesAreBoundToTheSessionAndItsChallenge(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let (sessionA, challengeA) = try await device.confirmedSession(backend, user: "alice", account: account)
        let (sessionB, _) = try await device.confirmedSession(backend, user: "alice", account: account)
        // A proof made for session A, sent to session B, is refused without counting anything.
        let message = SignedMessage.verifySecondFactor(sessionId: sessionA, challenge: challengeA, accountId: account)
        await #expect(throws: BackendError.self) {
            try await backend.verifySecondFactor(
                sessionId: sessionB,
                VerifyPinRequest(
                    deviceId: device.id, accountId: account, accountSignature: Base64URL.encode(device.accountKey.sign(message)),
                    pinSignature: Base64URL.encode(try device.pinKey("260418").sign(message))))
        }
        // A replayed challenge is refused once used.
        let first = try await device.provePin(backend, session: sessionA, challenge: challengeA, account: account, pin: "111000")
        #expect(first.secondFactor.failedAttempts == 1)
        await #expect(throws: BackendError.self) {
            try await device.provePin(backend, session: sessionA, challenge: challengeA, account: account, pin: "260418")
        }
    }

    @Test(arguments: TestEngine.available) func tokensAreSingleUseAndExpire(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let session = try await backend.createSession(type: .enrol, userId: "alice", displayName: nil)
        _ = try await device.redeem(backend, session)
        await #expect(throws: BackendError.self) { try await device.redeem(backend, session) }

        let late = try await backend.createSession(type: .enrol, userId: "bob", displayName: nil)
        clock.advance(301)
        #expect(try await backend.session(id: late.id).status == .expired)
        await #expect(throws: BackendError.self) { try await device.redeem(backend, late) }
    }

    @Test(arguments: TestEngine.available) func theAdministratorUnblocksABlockedPin(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let (device, account) = try await enrolAliceAndBlockHerPin(backend)
        #expect(try await backend.unblockPin(userId: "alice") == 1)
        let (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        let answer = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
        #expect(answer.result == .accepted)
        #expect(try await backend.session(id: session).status == .loggedin)
        #expect(try await backend.unblockPin(userId: "alice") == 0)
    }

    @Test(arguments: TestEngine.available) func unblockingAUserWithNoAccountIsRefused(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let error = await #expect(throws: BackendError.self) { _ = try await backend.unblockPin(userId: "nobody") }
        #expect(error?.code == "USER_NOT_ENROLLED")
    }

}

@Suite struct PendingOperationsTests {
    let clock = TestClock()

    @Test(arguments: TestEngine.available) func onlyAFreshRequestSignedByTheAccountGetsAnAnswer(on engine: TestEngine) async throws {
        let clock = clock
        let backend = try await DemoBackend(
            store: try await engine.open(BackendStore.self), baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let login = try await backend.createSession(type: .login, userId: "alice", displayName: nil)

        func request(at time: Date, signedBy key: Ed25519.KeyPair = device.accountKey) -> PendingRequest {
            PendingRequest(
                deviceId: device.id, accountId: account, timestamp: time,
                signature: Base64URL.encode(key.sign(SignedMessage.pending(accountId: account, timestamp: time))))
        }
        let answer = try await backend.pendingOperations(request(at: clock.now()))
        #expect(answer.operations.map(\.sessionId) == [login.id])
        #expect(try OutOfBandDecoder.decode(qrText: answer.operations[0].payload) == OutOfBandDecoder.decode(qrText: login.qrText))

        await #expect(throws: BackendError.self) { try await backend.pendingOperations(request(at: clock.now().addingTimeInterval(-301))) }
        await #expect(throws: BackendError.self) {
            try await backend.pendingOperations(request(at: clock.now(), signedBy: try .generate()))
        }
        clock.advance(301)  // the session expired
        #expect(try await backend.pendingOperations(request(at: clock.now())).operations.isEmpty)
    }

}
