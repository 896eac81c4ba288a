import BackendAPI
import Foundation
import Testing

@testable import Backend

/// The session's life as a table: for a type, a status and an event, the status it moves to and
/// what the caller must do, or the refusal; with no I/O and no clock.
@Suite struct SessionMachineTests {
    static let now = Date(timeIntervalSince1970: 1_000)
    static let later = now.addingTimeInterval(60)

    static func machine(
        _ type: WireSessionType, _ status: SessionStatus, expiresAt: Date = later, skipsSecondFactor: Bool = false
    ) -> SessionMachine {
        SessionMachine(status: status, failure: nil, type: type, expiresAt: expiresAt, skipsSecondFactor: skipsSecondFactor)
    }

    struct Move: CustomTestStringConvertible, Sendable {
        let type: WireSessionType
        let from: SessionStatus
        let event: SessionMachine.Event
        let to: SessionStatus
        var actions: [SessionMachine.Action] = []
        var failure: String? = nil
        var skipsSecondFactor = false
        var testDescription: String { "\(type) \(from) + \(event) → \(to)" }
    }

    static let moves: [Move] = [
        Move(type: .enrol, from: .pending, event: .redeemed, to: .redeemed),
        Move(type: .login, from: .pending, event: .redeemed, to: .redeemed),
        Move(type: .enrol, from: .redeemed, event: .confirmed, to: .confirmed, actions: [.issueChallenge]),
        Move(type: .login, from: .redeemed, event: .confirmed, to: .confirmed, actions: [.issueChallenge]),
        Move(
            type: .login, from: .redeemed, event: .confirmed, to: .loggedin, actions: [.issueChallenge, .clearOTPFailures],
            skipsSecondFactor: true),
        // only a login skips its second factor
        Move(type: .transaction, from: .redeemed, event: .confirmed, to: .confirmed, actions: [.issueChallenge], skipsSecondFactor: true),
        Move(type: .enrol, from: .confirmed, event: .accountEnrolled, to: .enrolled),
        Move(type: .transaction, from: .confirmed, event: .transactionSigned, to: .confirmed, actions: [.issueChallenge]),
        Move(type: .login, from: .confirmed, event: .secondFactorAccepted, to: .loggedin, actions: [.clearOTPFailures]),
        Move(type: .transaction, from: .confirmed, event: .secondFactorAccepted, to: .signed),
        Move(type: .changePin, from: .confirmed, event: .secondFactorAccepted, to: .verified, actions: [.issueChallenge]),
        Move(type: .addBiometrics, from: .confirmed, event: .secondFactorAccepted, to: .verified, actions: [.issueChallenge]),
        Move(type: .removeBiometrics, from: .confirmed, event: .secondFactorAccepted, to: .completed, actions: [.removeBiometricKey]),
        Move(
            type: .login, from: .confirmed, event: .secondFactorRejected(blocked: false, biometricsRegistered: false), to: .confirmed,
            actions: [.issueChallenge]),
        Move(
            type: .login, from: .confirmed, event: .secondFactorRejected(blocked: true, biometricsRegistered: false), to: .failed,
            failure: "PIN_BLOCKED"),
        // a biometric key may still unblock the PIN, so the login goes on
        Move(
            type: .login, from: .confirmed, event: .secondFactorRejected(blocked: true, biometricsRegistered: true), to: .confirmed,
            actions: [.issueChallenge]),
        // but not during an enrolment, which sets or proves the PIN only
        Move(
            type: .enrol, from: .confirmed, event: .secondFactorRejected(blocked: true, biometricsRegistered: true), to: .failed,
            failure: "PIN_BLOCKED"),
        Move(type: .changePin, from: .verified, event: .factorSet, to: .completed),
        Move(type: .addBiometrics, from: .verified, event: .factorSet, to: .completed),
        Move(type: .upgrade, from: .redeemed, event: .keyRotated, to: .completed),
        Move(type: .login, from: .pending, event: .otpAccepted, to: .loggedin, actions: [.clearOTPFailures]),
        Move(type: .login, from: .confirmed, event: .otpAccepted, to: .loggedin, actions: [.clearOTPFailures]),
        Move(type: .login, from: .confirmed, event: .abandoned(code: "USER_CANCELED"), to: .canceled, failure: "USER_CANCELED"),
        Move(type: .enrol, from: .pending, event: .abandoned(code: "NO_ACCOUNT"), to: .failed, failure: "NO_ACCOUNT"),
        Move(type: .login, from: .pending, event: .pushed, to: .pending),
    ]

    @Test(arguments: moves) func takes(_ move: Move) throws {
        var machine = Self.machine(move.type, move.from, skipsSecondFactor: move.skipsSecondFactor)
        #expect(throws: Never.self) { try machine.check(move.event, at: Self.now) }
        #expect(machine.status == move.from, "checking moves nothing")
        #expect(try machine.handle(move.event, at: Self.now) == move.actions)
        #expect(machine.status == move.to)
        #expect(machine.failure == move.failure)
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        let type: WireSessionType
        let from: SessionStatus
        let event: SessionMachine.Event
        let code: String
        var expired = false
        var testDescription: String { "\(type) \(from)\(expired ? " expired" : "") + \(event) → \(code)" }
    }

    static let refusals: [Refusal] = [
        Refusal(type: .login, from: .redeemed, event: .redeemed, code: "TOKEN_ALREADY_REDEEMED"),
        Refusal(type: .login, from: .pending, event: .redeemed, code: "TOKEN_EXPIRED", expired: true),
        // nextAuth's "enrol QR expired" (41), whether used or expired
        Refusal(type: .enrol, from: .enrolled, event: .redeemed, code: "ENROL_QR_EXPIRED"),
        Refusal(type: .enrol, from: .pending, event: .redeemed, code: "ENROL_QR_EXPIRED", expired: true),
        Refusal(type: .login, from: .pending, event: .confirmed, code: "SESSION_STATE"),
        Refusal(type: .login, from: .redeemed, event: .confirmed, code: "SESSION_EXPIRED", expired: true),
        Refusal(type: .login, from: .confirmed, event: .accountEnrolled, code: "SESSION_STATE"),
        Refusal(type: .login, from: .confirmed, event: .transactionSigned, code: "SESSION_STATE"),
        Refusal(type: .enrol, from: .confirmed, event: .secondFactorAccepted, code: "SESSION_STATE"),
        Refusal(type: .upgrade, from: .confirmed, event: .secondFactorAccepted, code: "SESSION_STATE"),
        Refusal(type: .login, from: .redeemed, event: .secondFactorAccepted, code: "SESSION_STATE"),
        Refusal(type: .login, from: .loggedin, event: .secondFactorRejected(blocked: false, biometricsRegistered: false), code: "SESSION_STATE"),
        Refusal(type: .changePin, from: .confirmed, event: .factorSet, code: "SESSION_STATE"),
        Refusal(type: .removeBiometrics, from: .verified, event: .factorSet, code: "SESSION_STATE"),
        Refusal(type: .login, from: .redeemed, event: .keyRotated, code: "SESSION_STATE"),
        Refusal(type: .login, from: .loggedin, event: .otpAccepted, code: "SESSION_STATE"),
        Refusal(type: .login, from: .pending, event: .otpAccepted, code: "SESSION_EXPIRED", expired: true),
        Refusal(type: .transaction, from: .pending, event: .otpAccepted, code: "SESSION_STATE"),
        Refusal(type: .login, from: .canceled, event: .abandoned(code: "USER_CANCELED"), code: "SESSION_STATE"),
        Refusal(type: .login, from: .redeemed, event: .pushed, code: "SESSION_STATE"),
        Refusal(type: .login, from: .pending, event: .pushed, code: "SESSION_EXPIRED", expired: true),
    ]

    @Test(arguments: refusals) func refuses(_ refusal: Refusal) {
        let expiresAt = refusal.expired ? Self.now : Self.later
        var machine = Self.machine(refusal.type, refusal.from, expiresAt: expiresAt)
        let before = machine
        #expect(throws: BackendError.self) { try machine.check(refusal.event, at: Self.now) }
        do {
            _ = try machine.handle(refusal.event, at: Self.now)
            Issue.record("\(refusal.event) was taken")
        } catch {
            #expect(error.code == refusal.code)
        }
        #expect(machine == before, "a refused event changes nothing")
    }

    /// Expiry is read off the clock: a running session shows expired once its time is up, a
    /// finished one keeps its outcome.
    @Test func expiryIsReadAtTheViewsTime() {
        #expect(Self.machine(.login, .confirmed).status(at: Self.now) == .confirmed)
        #expect(Self.machine(.login, .confirmed).status(at: Self.later) == .expired)
        #expect(Self.machine(.login, .loggedin).status(at: Self.later) == .loggedin)
    }

    @Test func managementSessionsStartConfirmed() {
        let confirmedAtStart = WireSessionType.allCases.filter { SessionMachine.initialStatus(of: $0) == .confirmed }
        #expect(confirmedAtStart == [.changePin, .addBiometrics, .removeBiometrics])
        #expect(SessionMachine.initialStatus(of: .login) == .pending)
    }
}
