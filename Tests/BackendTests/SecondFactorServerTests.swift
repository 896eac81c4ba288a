import Backend
import BackendAPI
import Foundation
import OutOfBand
import SodiumKit
import TestDoubles
import Testing

/// A device speaking the wire directly to the backend, without HTTP: enough to drive the
/// Second Factor Server's counting from many sessions at once.
struct ScriptedDevice {
    let id = UUID().uuidString
    let accountKey = try! Ed25519.KeyPair.generate()
    let salt = [UInt8](repeating: 3, count: PinKeyDerivation.saltLength)
    let derivation = PinKeyDerivation(profile: .fast)

    func pinKey(_ pin: String) throws -> Ed25519.KeyPair {
        try derivation.keyPair(pin: GuardedBytes(copying: Array(pin.utf8)), salt: salt)
    }

    func redeem(_ backend: DemoBackend, _ session: BackendSession) async throws -> RedeemResponse {
        let payload = try OutOfBandDecoder.decode(qrText: session.qrText)
        return try await backend.redeem(RedeemRequest(token: payload.redeemData.token, deviceId: id))
    }

    /// Enrols `user` with `pin` and returns the account id.
    func enrol(_ backend: DemoBackend, user: String, pin: String) async throws -> String {
        try #require(try await enrolment(backend, user: user, pin: pin).answer.accountId)
    }

    /// Enrols `user` with `pin`, offering the backend an OTP public key when given one; returns
    /// the backend's answer and the session it was enrolled in.
    func enrolment(_ backend: DemoBackend, user: String, pin: String,
                   otpPublicKey: [UInt8]? = nil) async throws -> (answer: SecondFactorResponse, redeemed: RedeemResponse) {
        let redeemed = try await redeem(backend, try await backend.createSession(type: .enrol, userId: user, displayName: nil))
        let confirmed = try await backend.confirm(sessionId: redeemed.sessionId, ConfirmRequest(deviceId: id, accountId: nil, signature: nil))
        let publicKey = Base64URL.encode(accountKey.publicKey)
        let message = SignedMessage.enrol(sessionId: redeemed.sessionId, challenge: confirmed.challenge, accountPublicKey: publicKey)
        let pinKey = try pinKey(pin)
        let answer = try await backend.enrol(sessionId: redeemed.sessionId, EnrolRequest(
            deviceId: id, accountPublicKey: publicKey, accountSignature: Base64URL.encode(accountKey.sign(message)),
            pinPublicKey: Base64URL.encode(pinKey.publicKey), pinSignature: Base64URL.encode(pinKey.sign(message)),
            deviceName: "scripted", fcmToken: nil, otpPublicKey: otpPublicKey.map(Base64URL.encode)))
        return (answer, redeemed)
    }

    /// Starts a login (or a transaction) and confirms it; returns the session id and the next challenge.
    func confirmedSession(_ backend: DemoBackend, user: String, account: String, type: WireSessionType = .login,
                          transaction: String? = nil) async throws -> (String, String) {
        let created = try await backend.createSession(type: type, userId: user, displayName: nil, transaction: transaction)
        let redeemed = try await redeem(backend, created)
        let signature = accountKey.sign(SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: account))
        let confirmed = try await backend.confirm(sessionId: redeemed.sessionId,
                                                  ConfirmRequest(deviceId: id, accountId: account, signature: Base64URL.encode(signature)))
        return (redeemed.sessionId, confirmed.challenge)
    }

    func provePin(_ backend: DemoBackend, session: String, challenge: String, account: String,
                  pin: String) async throws -> SecondFactorResponse {
        let message = SignedMessage.verifyPin(sessionId: session, challenge: challenge, accountId: account)
        return try await backend.verifyPin(sessionId: session, VerifyPinRequest(
            deviceId: id, accountId: account, accountSignature: Base64URL.encode(accountKey.sign(message)),
            pinSignature: Base64URL.encode(try pinKey(pin).sign(message))))
    }
}

@Suite struct SecondFactorServerTests {
    let clock = TestClock()

    func makeBackend(_ policy: SecondFactorPolicy = .nextAuth) throws -> DemoBackend {
        let clock = clock
        return try DemoBackend(database: .inMemory(), configuration: .init(secondFactorPolicy: policy),
                               baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
    }

    @Test func wrongWrongRightResetsTheCount() async throws {
        let backend = try makeBackend()
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

    @Test func blockedAfterThreeAndTheRightPinIsStillRefused() async throws {
        let backend = try makeBackend()
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        for _ in 1...3 {
            let (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
            _ = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000")
        }
        let (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account)
        let answer = try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
        #expect(answer.result == .rejected)
        #expect(answer.secondFactor.isBlocked)
        #expect(answer.secondFactor.failedAttempts == 3)
    }

    /// Ten wrong PINs at once from ten sessions: exactly three are counted (security figure 2).
    @Test func concurrentWrongPinsCannotGetMoreTriesThanTheLimit() async throws {
        let backend = try makeBackend()
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        var logins: [(String, String)] = []
        for _ in 0..<10 { logins.append(try await device.confirmedSession(backend, user: "alice", account: account)) }
        let answers = try await withThrowingTaskGroup(of: SecondFactorResponse.self) { group in
            for (session, challenge) in logins {
                group.addTask { try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "111000") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.result == .rejected })
        #expect(Set(answers.map(\.secondFactor.failedAttempts)) == [1, 2, 3])
        #expect(answers.filter { $0.secondFactor.isBlocked }.count == 8) // the third failure and the seven refused after it
        #expect(answers.map(\.secondFactor.failedAttempts).max() == 3)
    }

    /// During a penalty an input is refused and nothing is counted (security figure 3).
    @Test func aPenaltyRefusesInputWithoutCounting() async throws {
        let backend = try makeBackend(SecondFactorPolicy(maxAttempts: 5, penalties: [0, 60]))
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

    @Test func signaturesAreBoundToTheSessionAndItsChallenge() async throws {
        let backend = try makeBackend()
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let (sessionA, challengeA) = try await device.confirmedSession(backend, user: "alice", account: account)
        let (sessionB, _) = try await device.confirmedSession(backend, user: "alice", account: account)
        // A proof made for session A, sent to session B, is refused without counting anything.
        let message = SignedMessage.verifyPin(sessionId: sessionA, challenge: challengeA, accountId: account)
        await #expect(throws: BackendError.self) {
            try await backend.verifyPin(sessionId: sessionB, VerifyPinRequest(
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

    @Test func tokensAreSingleUseAndExpire() async throws {
        let backend = try makeBackend()
        let device = ScriptedDevice()
        let session = try await backend.createSession(type: .enrol, userId: "alice", displayName: nil)
        _ = try await device.redeem(backend, session)
        await #expect(throws: BackendError.self) { try await device.redeem(backend, session) }

        let late = try await backend.createSession(type: .enrol, userId: "bob", displayName: nil)
        clock.advance(301)
        #expect(try await backend.session(id: late.id).status == .expired)
        await #expect(throws: BackendError.self) { try await device.redeem(backend, late) }
    }
}

@Suite struct PendingOperationsTests {
    let clock = TestClock()

    @Test func onlyAFreshRequestSignedByTheAccountGetsAnAnswer() async throws {
        let clock = clock
        let backend = try DemoBackend(database: .inMemory(), baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let login = try await backend.createSession(type: .login, userId: "alice", displayName: nil)

        func request(at time: Date, signedBy key: Ed25519.KeyPair = device.accountKey) -> PendingRequest {
            PendingRequest(deviceId: device.id, accountId: account, timestamp: time,
                           signature: Base64URL.encode(key.sign(SignedMessage.pending(accountId: account, timestamp: time))))
        }
        let answer = try await backend.pendingOperations(request(at: clock.now()))
        #expect(answer.operations.map(\.sessionId) == [login.id])
        #expect(try OutOfBandDecoder.decode(qrText: answer.operations[0].payload) == OutOfBandDecoder.decode(qrText: login.qrText))

        await #expect(throws: BackendError.self) { try await backend.pendingOperations(request(at: clock.now().addingTimeInterval(-301))) }
        await #expect(throws: BackendError.self) {
            try await backend.pendingOperations(request(at: clock.now(), signedBy: try .generate()))
        }
        clock.advance(301) // the session expired
        #expect(try await backend.pendingOperations(request(at: clock.now())).operations.isEmpty)
    }
}
