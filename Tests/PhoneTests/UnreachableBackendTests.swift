import AuthFlow
import BackendAPI
import Foundation
import OTP
import OutOfBand
import Phone
import Retry
import TestDoubles
import Testing

/// A scanned session whose backend cannot be reached (docs/behaviour.md#offline-otp): the caller
/// hears error 70 at once, the phone tries again on its schedule, and meanwhile an offline OTP
/// is on offer for an account at that server.
@Suite(.timeLimit(.minutes(1))) struct UnreachableBackendTests {
    static let unreachable = PhoneError.serverConnection("connection refused")

    /// After the planned wait (the waits are recorded, not slept) the phone fetches the session
    /// again by itself, and the flow starts when it arrives.
    @Test(arguments: TestEngine.available) func theSessionIsFetchedAgainAfterThePlannedWait(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine, sessionFetchRetry: .constant(maxRetries: 2, delay: .seconds(3)))
        let (id, session) = try await loginArrivingOnTheSecondTry(phone)
        var events = phone.phones.events.subscribe(id).makeAsyncIterator()

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload())
        }

        #expect(error?.sdkCode == 70)
        var starts: [SessionStart] = []
        var started: Flow?
        while started == nil, let event = await events.next() {
            switch event {
            case .session(let start): starts.append(start)
            case .flowUpdate(let flow): started = flow
            default: break
            }
        }
        let failed = try #require(starts.first { $0.connectionError })
        #expect(failed.state == .starting)
        #expect(failed.error?.sdkCode == 70)
        #expect(failed.nextAttemptAt == phone.clock.now().addingTimeInterval(3))
        #expect(phone.sleeps.recorded == [.seconds(3)])
        #expect(started?.session?.id == session.sessionId)
        #expect(starts.last?.state == .ready)
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// A fault was lifted: the session waiting out its back-off is fetched again at once, not
    /// when the wait ends.
    @Test(arguments: TestEngine.available) func aWaitingSessionIsFetchedAtOnceWhenTheWayIsClear(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine, sessionFetchRetry: .constant(maxRetries: 2, delay: .seconds(30)), waitsEnd: false)
        let (id, session) = try await loginArrivingOnTheSecondTry(phone)
        var events = phone.phones.events.subscribe(id).makeAsyncIterator()
        await #expect(throws: PhoneError.self) { try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload()) }
        while let event = await events.next() {
            if case .session(let start) = event, start.nextAttemptAt != nil { break }
        }

        await phone.phones.sdk.retryWaitingSessionsNow()

        var started: Flow?
        while started == nil, let event = await events.next() {
            if case .flowUpdate(let flow) = event { started = flow }
        }
        #expect(started?.session?.id == session.sessionId)
        #expect(phone.sleeps.recorded == [.seconds(30)])
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// The OTP generated while the backend is away is the one the backend derives from its half
    /// of the key agreed at enrolment; generating it ends the session.
    @Test(arguments: TestEngine.available) func theOfflineOTPIsTheOneTheBackendExpects(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine, sessionFetchRetry: .none)
        let id = try await phone.newPhone()
        let enrolment = try await phone.enrol(id, otpReference: 7)
        let payload = try await scanWhileUnreachable(phone, id)

        let start = try await phone.phones.sdk.generateOTP(phoneId: id, accountId: nil)

        let key = try #require(enrolment.otpKey)
        let expected = OfflineOTP.generate(key: key, sessionData: payload.redeemData.token, reference: 7, at: phone.clock.now())
        #expect(start.otp == expected.description)
        #expect(start.otpAccountId == enrolment.accountId)
        #expect(start.state == .stopped)
        #expect(start.stopReason == "OTP_GENERATED")
    }

    /// Online, the screen offers the OTP after the phone's countdown; a phone that knows it has
    /// no network offers it at once.
    @Test(arguments: TestEngine.available, [false, true])
    func theOTPIsOfferedAtOnceOnlyWhenThePhoneIsOffline(on engine: TestEngine, offline: Bool) async throws {
        let phone = try await PhoneUnderTest(on: engine, sessionFetchRetry: .none)
        let id = try await phone.newPhone()
        _ = try await phone.enrol(id, otpReference: 7)
        if offline { phone.backend.takeOffline(id) }

        _ = try await scanWhileUnreachable(phone, id)

        let start = try #require(try await phone.phones.phone(id: id).session)
        #expect(start.state == .starting)
        #expect(start.otpAvailable)
        let countdown = TimeInterval(PhoneSettings.defaultOTPCountdown)
        #expect(start.otpOfferAt == phone.clock.now().addingTimeInterval(offline ? 0 : countdown))
    }

    /// A refusal is an answer: the session stops with its code, and nothing is tried again.
    @Test(arguments: TestEngine.available) func aRefusalStopsTheSessionWithoutRetrying(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        _ = try await phone.enrol(id, otpReference: 7)
        phone.backend.expect(TestServer.redeemURL, failingWith: PhoneError(.gone, "SESSION_EXPIRED", "the session expired"))

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload())
        }

        #expect(error?.code == "SESSION_EXPIRED")
        let start = try #require(try await phone.phones.phone(id: id).session)
        #expect(start.state == .stopped)
        #expect(start.stopReason == "SESSION_EXPIRED")
        #expect(phone.sleeps.recorded.isEmpty)
    }

    /// A login scanned while its backend cannot be reached; answers the payload scanned.
    /// An enrolled phone whose backend cannot be reached for a login's first fetch and answers
    /// the next.
    private func loginArrivingOnTheSecondTry(_ phone: PhoneUnderTest) async throws -> (id: String, session: RedeemResponse) {
        let id = try await phone.newPhone()
        _ = try await phone.enrol(id, otpReference: 7)
        let session = phone.server.session(.login)
        phone.backend.expect(TestServer.redeemURL, failingWith: Self.unreachable)
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in session }
        return (id, session)
    }

    private func scanWhileUnreachable(_ phone: PhoneUnderTest, _ id: String) async throws -> OutOfBandPayload {
        let payload = phone.server.payload()
        phone.backend.expect(TestServer.redeemURL, failingWith: Self.unreachable)
        let error = await #expect(throws: PhoneError.self) { try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: payload) }
        #expect(error?.code == "SERVER_CONNECTION_ERROR")
        return payload
    }
}
