import AuthFlow
import BackendAPI
import BlockingWork
import Foundation
import Phone
import Retry
import SodiumKit
import Storage
import Synchronization
import TestDoubles
import Testing

/// The phones with every part real but the network: the store on the test's engine (SQLite in
/// memory, or a schema of its own on the test PostgreSQL), libsodium with the fast
/// PIN key derivation, a clock the test moves, waits recorded instead of slept, jitter one half,
/// and the backend scripted by the test.
struct PhoneUnderTest {
    static let pin = "260418"

    let backend = ScriptedBackend()
    let server: TestServer
    let clock = TestClock()
    let sleeps = SleepRecorder()
    let store: PhoneStore
    let phones: PhoneService

    init(
        on engine: TestEngine, sessionFetchRetry: RetryPolicy = PhoneService.Configuration.defaultSessionFetchRetry, pinLane: WorkLane? = nil,
        keyLane: WorkLane? = nil, waitsEnd: Bool = true
    ) async throws {
        server = try TestServer()
        store = try await engine.open(PhoneStore.self)
        let sleeps = sleeps
        let clock = clock
        var configuration = PhoneService.Configuration(
            allowedBackends: { [TestServer.url] }, pinDerivation: PinKeyDerivation(profile: .fast),
            sessionFetchRetry: sessionFetchRetry,
            sleep: { wait in
                sleeps.sleep(wait)
                // a wait that ends only when its task is cancelled, for what must not wait it out
                if !waitsEnd { try await Task.sleep(for: .seconds(86_400)) }
            }, random: { 0.5 })
        configuration.pinLane = pinLane
        configuration.keyLane = keyLane
        // privacyIDEA is reached over real HTTP; an unreachable one fails its attempts within a second
        phones = PhoneService(
            store: store, configuration: configuration, network: backend, privacyIDEAWire: WireHTTPClient(timeout: .milliseconds(500)),
            now: { clock.now() })
    }

    func newPhone() async throws -> String {
        try await phones.createPhone(name: "Test phone").id
    }

    /// A new phone with alice enrolled on it.
    func enrolledPhone() async throws -> (id: String, enrolment: Enrolment) {
        let id = try await newPhone()
        return (id, try await enrol(id))
    }

    func flow(_ phoneId: String) async -> Flow? {
        await phones.sdk.currentFlow(phoneId: phoneId)
    }

    /// The device key the phone presented when it last redeemed a session.
    func devicePublicKey() throws -> String {
        try #require(backend.sent.last { $0.url == TestServer.redeemURL }).decode(RedeemRequest.self).devicePublicKey
    }

    static func guarded(_ pin: String) throws -> GuardedBytes {
        try GuardedBytes(copying: Array(pin.utf8))
    }

    /// What the backend learnt of an enrolled account: its id and the public keys the phone sent.
    struct Enrolment: Sendable {
        let accountId: String
        let accountKey: String
        let pinKey: String
        /// The offline OTP key as the backend derived it, when it offered one.
        let otpKey: [UInt8]?
    }

    /// Enrols alice on the phone with `Self.pin`, through redeem, confirm and the new PIN; with
    /// an `otpReference` the backend offers an offline OTP key.
    func enrol(_ phoneId: String, otpReference: UInt32? = nil) async throws -> Enrolment {
        let session = server.session(.enrol)
        backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in session }
        _ = try await phones.sdk.startOutOfBand(phoneId: phoneId, payload: server.payload())
        let challenge = "enrol-challenge"
        backend.expect(TestServer.url + BackendRoutes.confirm(session.sessionId), ConfirmRequest.self) { _ in
            ConfirmResponse(secondFactor: nil, challenge: challenge)
        }
        try await phones.sdk.confirmSession(phoneId: phoneId, accountID: nil)
        let accountId = "account-\(UUID().uuidString.prefix(8))"
        let enrolment = Mutex<Enrolment?>(nil)
        backend.expect(TestServer.url + BackendRoutes.enrol(session.sessionId), EnrolRequest.self) { request in
            let message = SignedMessage.enrol(sessionId: session.sessionId, challenge: challenge, accountPublicKey: request.accountPublicKey)
            #expect(TestServer.verifies(request.pinSignature, message, by: request.pinPublicKey))
            #expect(TestServer.verifies(request.accountSignature, message, by: request.accountPublicKey))
            let otp = try otpReference.map { reference in
                try server.otpEnrolment(
                    sessionId: session.sessionId, accountId: accountId, reference: reference,
                    phonePublicKey: try #require(request.otpPublicKey))
            }
            enrolment.withLock {
                $0 = Enrolment(accountId: accountId, accountKey: request.accountPublicKey, pinKey: request.pinPublicKey, otpKey: otp?.key)
            }
            return SecondFactorResponse(result: .accepted, secondFactor: .fresh, accountId: accountId, challenge: nil, otp: otp?.answer)
        }
        try await phones.sdk.inputPin(phoneId: phoneId, pin: Self.guarded(Self.pin))
        #expect(await flow(phoneId)?.state == .done)
        return try #require(enrolment.withLock { $0 })
    }

    /// A login redeemed and confirmed with the enrolled account: the flow waits for the PIN.
    /// Answers the session and the challenge the PIN's proof signs.
    func loginUntilThePin(_ phoneId: String, _ enrolment: Enrolment) async throws -> (session: RedeemResponse, challenge: String) {
        let session = server.session(.login)
        backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in session }
        _ = try await phones.sdk.startOutOfBand(phoneId: phoneId, payload: server.payload())
        let challenge = "login-challenge"
        backend.expect(TestServer.url + BackendRoutes.confirm(session.sessionId), ConfirmRequest.self) { request in
            let message = SignedMessage.confirm(sessionId: session.sessionId, challenge: session.challenge, accountId: enrolment.accountId)
            #expect(TestServer.verifies(request.signature, message, by: enrolment.accountKey))
            return ConfirmResponse(secondFactor: .fresh, challenge: challenge)
        }
        try await phones.sdk.confirmSession(phoneId: phoneId, accountID: nil)
        #expect(await flow(phoneId)?.currentInteraction?.type == .verifySecondFactor)
        return (session, challenge)
    }

    /// A whole login with `pin`, proven against the PIN key the backend holds (`pinKey`, or the enrolled one).
    func login(_ phoneId: String, _ enrolment: Enrolment, pin: String = pin, pinKey: String? = nil) async throws {
        let (session, challenge) = try await loginUntilThePin(phoneId, enrolment)
        expectPinProof(session.sessionId, challenge: challenge, enrolment, pinKey: pinKey)
        try await phones.sdk.inputPin(phoneId: phoneId, pin: Self.guarded(pin))
    }

    /// The backend checks the next PIN proof in `sessionId` against the PIN key it holds, as the
    /// Second Factor Server does: accepted (with `next` for a following step), or rejected with
    /// one more failure counted.
    func expectPinProof(
        _ sessionId: String, challenge: String, _ enrolment: Enrolment, pinKey: String? = nil, failuresBefore: Int = 0,
        next: String? = nil
    ) {
        backend.expect(TestServer.url + BackendRoutes.verifySecondFactor(sessionId), VerifyPinRequest.self) { request in
            let message = SignedMessage.verifySecondFactor(sessionId: sessionId, challenge: challenge, accountId: enrolment.accountId)
            guard TestServer.verifies(request.pinSignature, message, by: pinKey ?? enrolment.pinKey) else {
                return SecondFactorResponse(
                    result: .rejected, secondFactor: .failed(failuresBefore + 1), accountId: nil, challenge: Self.retryChallenge)
            }
            return SecondFactorResponse(result: .accepted, secondFactor: .fresh, accountId: nil, challenge: next)
        }
    }

    /// The challenge the backend gives for the attempt after a rejected PIN.
    static let retryChallenge = "retry-challenge"
}
