import Backend
import BackendAPI
import Foundation
import OTP
import OutOfBand
import SodiumKit
import TestDoubles
import Testing

/// The offline OTP's otpLogin (docs/behaviour.md#offline-otp) at the backend, on a test clock (security figures 10 to 14): the key
/// agreed at enrolment, the current and previous 2-minute steps only, each value once, only with
/// ENABLE_OTP, bound to its session, and a limit on wrong codes.
/// 1_800_000_000 is a step boundary: k·120 with k = 15_000_000.
private let k: TimeInterval = 1_800_000_000

@Suite struct OfflineOTPLoginTests {
    let clock = TestClock(Date(timeIntervalSince1970: k))
    static let pin = "260418"

    func makeBackend(on engine: TestEngine, maxOTPFailures: Int = OTPFailureLimit.maximum, enabled: Bool = true) async throws -> DemoBackend {
        let clock = clock
        let backend = try await DemoBackend(
            store: try await engine.open(BackendStore.self), configuration: .init(sessionLifetime: 3600, maxOTPFailures: maxOTPFailures),
            baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
        if enabled { _ = try await backend.setServerFlags(["ENABLE_OTP": true]) }
        return backend
    }

    /// A device enrolled with an OTP key: what the phone keeps of the agreement.
    struct OTPDevice {
        let device: ScriptedDevice
        let account: String
        let reference: UInt32
        let key: [UInt8]

        static func enrol(_ backend: DemoBackend, user: String = "alice") async throws -> OTPDevice {
            let device = ScriptedDevice()
            let pair = try KeyExchange.KeyPair.generate()
            let (answer, redeemed) = try await device.enrolment(backend, user: user, pin: OfflineOTPLoginTests.pin, otpPublicKey: pair.publicKey)
            let otp = try #require(answer.otp)
            let account = try #require(answer.accountId)
            // the backend's half is vouched for by the server key the phone pins
            let signed = SignedMessage.otpEnrolment(
                sessionId: redeemed.sessionId, accountId: account, reference: otp.reference,
                serverPublicKey: otp.serverPublicKey, phonePublicKey: Base64URL.encode(pair.publicKey))
            #expect(
                Ed25519.verify(
                    signature: try #require(Base64URL.decode(otp.signature)), message: signed,
                    publicKey: try #require(Base64URL.decode(redeemed.server.publicKey))))
            let key = try pair.clientSharedKey(serverPublicKey: try #require(Base64URL.decode(otp.serverPublicKey)))
            return OTPDevice(device: device, account: account, reference: otp.reference, key: key)
        }

        func code(for session: BackendSession, at time: TimeInterval) throws -> String {
            let token = try OutOfBandDecoder.decode(qrText: session.qrText).redeemData.token
            return OfflineOTP.generate(key: key, sessionData: token, reference: reference, at: Date(timeIntervalSince1970: time)).description
        }
    }

    func login(_ backend: DemoBackend, user: String = "alice") async throws -> BackendSession {
        try await backend.createSession(type: .login, userId: user, displayName: nil)
    }

    func refusal(_ body: () async throws -> BackendSession) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as BackendError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: TestEngine.available) func aRightCodeLogsTheSessionInMarkedOTPLogin(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let phone = try await OTPDevice.enrol(backend)
        let session = try await login(backend)
        let done = try await backend.otpLogin(sessionId: session.id, otp: try phone.code(for: session, at: k))
        #expect(done.status == .loggedin && done.loggedin && done.otplogin)
        #expect(done.accountId == phone.account)
        let read = try await backend.session(id: session.id)
        #expect(read.otplogin && read.status == .loggedin)
    }

    /// (generated at, checked at) → accepted: the current and the previous step of the server's clock only.
    @Test(arguments: [
        (k - 1, k, true), (k, k, true), (k, k + 119, true), (k - 1, k + 119, true),
        (k - 121, k, false), (k, k + 240, false), (k - 1, k + 120, false), (k + 120, k + 119, false),
    ])
    func stepBoundaries(generatedAt: TimeInterval, checkedAt: TimeInterval, accepted: Bool) async throws {
        let backend = try await makeBackend(on: .sqlite)
        let phone = try await OTPDevice.enrol(backend)
        let session = try await login(backend)
        clock.advance(checkedAt - clock.now().timeIntervalSince1970)
        let refused = await refusal { try await backend.otpLogin(sessionId: session.id, otp: try phone.code(for: session, at: generatedAt)) }
        #expect(refused == (accepted ? nil : "OTP_REJECTED"))
    }

    /// Each value is bound to its session, so the replay rule is one success per account and step
    /// (RFC 6238 §5.2): after a login at step k, another live session's code of step k, or of the
    /// step before, is refused, while the next step's is fine.
    @Test(arguments: TestEngine.available) func aStepIsUsedOnceEvenByAnotherLiveSession(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let phone = try await OTPDevice.enrol(backend)
        let (first, second, third) = (try await login(backend), try await login(backend), try await login(backend))
        let code = try phone.code(for: first, at: k)
        _ = try await backend.otpLogin(sessionId: first.id, otp: code)
        #expect(await refusal { try await backend.otpLogin(sessionId: first.id, otp: code) } == "SESSION_STATE")
        clock.advance(119)  // still step k
        #expect(await refusal { try await backend.otpLogin(sessionId: second.id, otp: try phone.code(for: second, at: k + 119)) } == "OTP_REJECTED")
        #expect(await refusal { try await backend.otpLogin(sessionId: third.id, otp: try phone.code(for: third, at: k - 1)) } == "OTP_REJECTED")
        #expect(try await backend.session(id: second.id).status == .pending)
        #expect(try await backend.session(id: third.id).status == .pending)
        clock.advance(1)
        _ = try await backend.otpLogin(sessionId: second.id, otp: try phone.code(for: second, at: k + 120))
    }

    @Test(arguments: TestEngine.available) func aCodeIsBoundToItsSession(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let phone = try await OTPDevice.enrol(backend)
        let a = try await login(backend)
        let b = try await login(backend)
        #expect(await refusal { try await backend.otpLogin(sessionId: b.id, otp: try phone.code(for: a, at: k)) } == "OTP_REJECTED")
        #expect(try await backend.session(id: b.id).status == .pending)
        _ = try await backend.otpLogin(sessionId: a.id, otp: try phone.code(for: a, at: k))
    }

    @Test(arguments: TestEngine.available) func onlyWhileTheServerFlagIsSet(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine, enabled: false)
        #expect(try await backend.serverFlags() == ["ENABLE_OTP": false, "SKIP_CONFIRMATION": false, "SKIP_SECOND_FACTOR": false])
        let phone = try await OTPDevice.enrol(backend)
        let session = try await login(backend)
        let code = try phone.code(for: session, at: k)
        #expect(await refusal { try await backend.otpLogin(sessionId: session.id, otp: code) } == "OTP_DISABLED")
        #expect(try await backend.session(id: session.id).status == .pending)
        #expect(try await backend.setServerFlags(["ENABLE_OTP": true])["ENABLE_OTP"] == true)
        #expect(try await backend.otpLogin(sessionId: session.id, otp: code).otplogin)
        _ = try await backend.setServerFlags(["ENABLE_OTP": false])
        let next = try await login(backend)
        #expect(await refusal { try await backend.otpLogin(sessionId: next.id, otp: try phone.code(for: next, at: k)) } == "OTP_DISABLED")
    }

    @Test(arguments: TestEngine.available) func anUnknownFlagChangesNothing(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine, enabled: false)
        await #expect(throws: BackendError.self) { try await backend.setServerFlags(["ENABLE_OTP": true, "ENABLE_MAGIC": true]) }
        #expect(try await backend.serverFlags() == ["ENABLE_OTP": false, "SKIP_CONFIRMATION": false, "SKIP_SECOND_FACTOR": false])
    }

    /// NIST 800-63B §5.2.2: the 101st attempt after 100 wrong ones is refused even when right; an
    /// online login with the PIN unlocks it.
    @Test(arguments: TestEngine.available) func wrongCodesAreLimitedPerAccount(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let phone = try await OTPDevice.enrol(backend)
        let other = try await OTPDevice.enrol(backend, user: "bob")
        let session = try await login(backend)
        let right = try phone.code(for: session, at: k)
        let wrong = String(right.prefix(7)) + (right.hasSuffix("000000") ? "000001" : "000000")
        for _ in 1...100 {
            #expect(await refusal { try await backend.otpLogin(sessionId: session.id, otp: wrong) } == "OTP_REJECTED")
        }
        #expect(await refusal { try await backend.otpLogin(sessionId: session.id, otp: right) } == "OTP_LOCKED")
        // another account is not held back
        let bobs = try await login(backend, user: "bob")
        _ = try await backend.otpLogin(sessionId: bobs.id, otp: try other.code(for: bobs, at: k))

        let (online, challenge) = try await phone.device.confirmedSession(backend, user: "alice", account: phone.account)
        _ = try await phone.device.provePin(backend, session: online, challenge: challenge, account: phone.account, pin: Self.pin)
        #expect(try await backend.otpLogin(sessionId: session.id, otp: right).otplogin)
    }

    /// One step's codes of ten live sessions, sent at once through two instances sharing one
    /// database (on SQLite, one): exactly one logs in, the step is used (RFC 6238 §5.2).
    @Test(arguments: TestEngine.available) func concurrentCodesOfOneStepThroughTwoInstancesLogInOnce(on engine: TestEngine) async throws {
        let store = try await engine.open(BackendStore.self)
        let clock = clock
        var instances: [DemoBackend] = []
        for database in [store, try await engine.otherInstance(of: store)] {
            instances.append(
                try await DemoBackend(
                    store: database, configuration: .init(sessionLifetime: 3600), baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() }))
        }
        let (first, second) = (instances[0], instances[1])
        _ = try await first.setServerFlags(["ENABLE_OTP": true])
        let phone = try await OTPDevice.enrol(first)
        var sessions: [BackendSession] = []
        for _ in 0..<10 { sessions.append(try await login(first)) }
        let codes = try sessions.map { try phone.code(for: $0, at: k) }
        let refusals = await withTaskGroup(of: String?.self) { group in
            for (index, session) in sessions.enumerated() {
                let backend = index % 2 == 0 ? first : second
                group.addTask { await refusal { try await backend.otpLogin(sessionId: session.id, otp: codes[index]) } }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(refusals.filter { $0 == nil }.count == 1)
        #expect(refusals.filter { $0 == "OTP_REJECTED" }.count == 9)
    }

    @Test(arguments: TestEngine.available) func concurrentWrongCodesCountExactlyToTheLimit(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine, maxOTPFailures: 5)
        let phone = try await OTPDevice.enrol(backend)
        let session = try await login(backend)
        let right = try phone.code(for: session, at: k)
        let wrong = String(right.prefix(7)) + (right.hasSuffix("000000") ? "000001" : "000000")
        let codes = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { await refusal { try await backend.otpLogin(sessionId: session.id, otp: wrong) } } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == "OTP_REJECTED" }.count == 5)
        #expect(codes.filter { $0 == "OTP_LOCKED" }.count == 15)
        #expect(await refusal { try await backend.otpLogin(sessionId: session.id, otp: right) } == "OTP_LOCKED")
    }

    @Test(arguments: TestEngine.available) func refusalsNameTheProblemAndChangeNothing(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine, maxOTPFailures: 1)
        let phone = try await OTPDevice.enrol(backend)
        let bob = try await OTPDevice.enrol(backend, user: "bob")
        let legacy = ScriptedDevice()
        _ = try await legacy.enrol(backend, user: "carol", pin: Self.pin)
        let session = try await login(backend)
        let right = try phone.code(for: session, at: k)
        let enrolment = try await backend.createSession(type: .enrol, userId: "dave", displayName: nil)
        let carols = try await login(backend, user: "carol")
        let cases: [(String, String, String)] = [
            (session.id, "2XPP7Q R5BDD", "INVALID_OTP_FORMAT"),
            (session.id, "2XPP7Q R5BDD01", "INVALID_OTP_FORMAT"),
            (session.id, "2XPP7Q R5BDDU", "INVALID_OTP_FORMAT"),
            (session.id, String(repeating: "0", count: 65), "INVALID_OTP_FORMAT"),
            (session.id, try bob.code(for: session, at: k), "OTP_ACCOUNT_UNKNOWN"),
            ("no-such-session", right, "SESSION_NOT_FOUND"),
            (enrolment.id, right, "NOT_A_LOGIN"),
            (carols.id, "000000 000000", "OTP_ACCOUNT_UNKNOWN"),
        ]
        for (id, code, expected) in cases {
            #expect(await refusal { try await backend.otpLogin(sessionId: id, otp: code) } == expected, "\(code)")
        }
        // none of them counted against the account (its limit here is one wrong code)
        #expect(try await backend.otpLogin(sessionId: session.id, otp: right).otplogin)

        let late = try await login(backend)
        clock.advance(3600)
        #expect(
            await refusal { try await backend.otpLogin(sessionId: late.id, otp: try phone.code(for: late, at: k + 3600)) }
                == "SESSION_EXPIRED")
    }

    @Test(arguments: TestEngine.available) func lookAlikesAndSeparatorsAreReadAsCrockfordSays(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let phone = try await OTPDevice.enrol(backend)
        let session = try await login(backend)
        let code = try phone.code(for: session, at: k)
        let typed = code.lowercased().replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: "0", with: "o")
            .replacingOccurrences(of: "1", with: "l")
        #expect(try await backend.otpLogin(sessionId: session.id, otp: typed).otplogin)
    }
}
