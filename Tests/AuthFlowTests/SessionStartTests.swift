import AuthFlow
import Foundation
import Testing

/// The session lifecycle (docs/behaviour.md#offline-otp), event by event with no I/O: STARTING announces the OTP,
/// READY withdraws it, generating it stops the session.
@Suite struct SessionStartTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let server = "http://127.0.0.1:8080"
    static func account(_ id: String) -> AccountSummary {
        AccountSummary(
            id: id, userId: "alice", displayName: "Alice", server: ServerSummary(name: "Demo", url: server),
            createdAt: Date(timeIntervalSince1970: 0))
    }
    static let connection = FlowError.serverConnection("connection refused")
    static let refusal = FlowError(code: "TOKEN_EXPIRED", message: "the token has expired")

    @Test func scanningWithAccountsAnnouncesTheOTP() {
        let session = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1")])
        #expect(session.state == .starting)
        #expect(session.otpAvailable)
        #expect(!session.connectionError)
        #expect(session.otpOfferAt == nil)
    }

    @Test func scanningWithoutAccountsOffersNoOTP() {
        let session = SessionStart(id: "s", server: Self.server, accounts: [])
        #expect(session.state == .starting)
        #expect(!session.otpAvailable)
    }

    @Test func theSessionArrivingWithdrawsTheOTP() {
        var session = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1")])
        let arrived = session.fetched()
        #expect(arrived)
        #expect(session.state == .ready)
        #expect(!session.otpAvailable)
        #expect(session.attempts == 1)
        #expect(throws: FlowInputError.self) { try session.otpAccount("a1") }
    }

    /// Each failure in STARTING: (connection?, accounts?, retry planned?) → (state, action, otpAvailable, otpOfferAt).
    @Test(
        arguments: [
            (true, true, 2.0, SessionStart.State.starting, SessionStart.Action.fetchAfter(2), true, 60.0 as TimeInterval?),
            (true, true, nil, .starting, .none, true, 60),
            (true, false, 2.0, .stopped, .none, false, nil),
            (false, true, 2.0, .stopped, .none, false, nil),
            (false, false, nil, .stopped, .none, false, nil),
        ] as [(Bool, Bool, TimeInterval?, SessionStart.State, SessionStart.Action, Bool, TimeInterval?)])
    func aFailedFetch(
        connection: Bool, withAccounts: Bool, retryIn: TimeInterval?, state: SessionStart.State,
        action: SessionStart.Action, otpAvailable: Bool, offerAfter: TimeInterval?
    ) {
        var session = SessionStart(id: "s", server: Self.server, accounts: withAccounts ? [Self.account("a1")] : [])
        let failure = connection ? Self.connection : Self.refusal
        let next = session.fetchFailed(
            failure, connection: connection, retryIn: retryIn, phoneOffline: false, countdown: 60,
            now: Self.now)
        #expect(next == action)
        #expect(session.state == state)
        #expect(session.otpAvailable == otpAvailable)
        #expect(session.connectionError == connection)
        #expect(session.error == failure)
        #expect(session.otpOfferAt == offerAfter.map { Self.now.addingTimeInterval($0) })
        #expect(session.nextAttemptAt == (action == .none ? nil : Self.now.addingTimeInterval(retryIn ?? 0)))
        #expect(session.stopReason == (state == .stopped ? failure.code : nil))
    }

    @Test func theCountdownStartsOnceAndIsSkippedOffline() {
        var session = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1")])
        _ = session.fetchFailed(Self.connection, connection: true, retryIn: 1, phoneOffline: false, countdown: 60, now: Self.now)
        _ = session.fetchFailed(
            Self.connection, connection: true, retryIn: 2, phoneOffline: false, countdown: 60,
            now: Self.now.addingTimeInterval(1))
        #expect(session.otpOfferAt == Self.now.addingTimeInterval(60))
        #expect(session.attempts == 2)

        var offline = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1")])
        _ = offline.fetchFailed(Self.connection, connection: true, retryIn: 1, phoneOffline: true, countdown: 60, now: Self.now)
        #expect(offline.otpOfferAt == Self.now)
    }

    @Test func aRetrySucceedingAfterFailuresStartsTheFlow() {
        var session = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1")])
        _ = session.fetchFailed(Self.connection, connection: true, retryIn: 1, phoneOffline: false, countdown: 60, now: Self.now)
        let arrived = session.fetched()
        #expect(arrived)
        #expect(session.state == .ready && !session.otpAvailable && !session.connectionError && session.error == nil)
        #expect(session.nextAttemptAt == nil)
    }

    @Test func generatingTheOTPStopsTheSessionAndALateArrivalIsIgnored() throws {
        var session = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1")])
        _ = session.fetchFailed(Self.connection, connection: true, retryIn: 1, phoneOffline: false, countdown: 60, now: Self.now)
        #expect(try session.otpAccount(nil).id == "a1")
        session.otpGenerated("2XPP7Q R5BDD0", accountId: "a1")
        #expect(session.state == .stopped)
        #expect(session.stopReason == "OTP_GENERATED")
        #expect(session.otp == "2XPP7Q R5BDD0" && session.otpAccountId == "a1")
        #expect(!session.otpAvailable && session.nextAttemptAt == nil)
        let lateArrival = session.fetched()
        #expect(!lateArrival)
        #expect(session.state == .stopped)
        let lateFailure = session.fetchFailed(
            Self.connection, connection: true, retryIn: 1, phoneOffline: false, countdown: 60,
            now: Self.now)
        #expect(lateFailure == .none)
        #expect(throws: FlowInputError.self) { try session.otpAccount("a1") }
    }

    @Test func severalAccountsNeedAChoice() throws {
        let session = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1"), Self.account("a2")])
        #expect(throws: FlowInputError(code: "ACCOUNT_REQUIRED", message: "choose one of the offered accounts to log in with")) {
            try session.otpAccount(nil)
        }
        #expect(try session.otpAccount("a2").id == "a2")
        #expect(throws: FlowInputError.self) { try session.otpAccount("elsewhere") }
    }

    @Test func cancellingStopsAStartingSessionOnly() throws {
        var session = SessionStart(id: "s", server: Self.server, accounts: [Self.account("a1")])
        try session.cancel()
        #expect(session.state == .stopped && session.stopReason == "USER_CANCELED" && !session.otpAvailable)
        #expect(throws: FlowInputError.self) { try session.cancel() }
    }
}
