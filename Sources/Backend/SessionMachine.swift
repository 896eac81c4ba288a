import BackendAPI
import Foundation

/// A session's life on the backend, from its start to its end, as one value: each event is
/// checked against the status and the type it may happen in, moves the status, and returns what
/// the caller must do besides. No I/O and no clock of its own (the caller passes the time), so
/// it is tested with tables; a session's status changes nowhere else.
struct SessionMachine: Sendable, Equatable {
    private(set) var status: SessionStatus
    /// Why a failed or cancelled session ended (an abandon code, `PIN_BLOCKED`).
    private(set) var failure: String?
    let type: WireSessionType?
    let expiresAt: Date
    /// A login whose configuration skips the second factor ends with its confirmation (seed 001).
    let skipsSecondFactor: Bool

    /// What happened to the session, said by the flow that saw it.
    enum Event: Equatable, Sendable {
        /// The console pushed the session (again) to a phone: it must still wait for one.
        case pushed
        /// A phone redeemed the session's token.
        case redeemed
        /// The user confirmed on the phone (choosing an account, but for an enrolment).
        case confirmed
        /// An enrolment registered its account.
        case accountEnrolled
        /// The account key signed a transaction's text; its second factor still follows.
        case transactionSigned
        case secondFactorAccepted
        /// `blocked`: the PIN is blocked now; `biometricsRegistered`: the device has a biometric
        /// key that could still unblock it.
        case secondFactorRejected(blocked: Bool, biometricsRegistered: Bool)
        /// A verified CHANGE_PIN or ADD_BIOMETRICS registered its new key.
        case factorSet
        /// HEADLESS_UPGRADE replaced the account key.
        case keyRotated
        /// A login accepted an offline OTP instead of the phone's answer.
        case otpAccepted
        /// The phone gave up (`USER_CANCELED` cancels, any other code fails the session).
        case abandoned(code: String)
    }

    /// What the caller carries out besides saving the new status.
    enum Action: Equatable, Sendable {
        /// The next request must sign a fresh challenge.
        case issueChallenge
        /// A login vouches for the user: the account's offline OTP failures start afresh.
        case clearOTPFailures
        /// REMOVE_BIOMETRICS: the device's biometric key goes.
        case removeBiometricKey
    }

    /// A management flow's session is confirmed at its start (the account key signed the request
    /// that started it); any other waits for its phone.
    static func initialStatus(of type: WireSessionType) -> SessionStatus {
        WireSessionType.management.contains(type) ? .confirmed : .pending
    }

    /// The status as the session's views show it: expiry is read off the clock, not written by a timer.
    func status(at now: Date) -> SessionStatus {
        !status.isFinal && expiresAt <= now ? .expired : status
    }

    /// Whether `event` may happen now, without making it happen: the flows ask before they check
    /// signatures, so a request in the wrong state is refused as such.
    func check(_ event: Event, at now: Date) throws(BackendError) {
        var trial = self
        _ = try trial.handle(event, at: now)
    }

    mutating func handle(_ event: Event, at now: Date) throws(BackendError) -> [Action] {
        switch event {
        case .pushed:
            try expect(.pending, at: now)
            return []
        case .redeemed:
            guard status == .pending, expiresAt > now else {
                // nextAuth names an enrolment QR code that expired or was used once: "enrol QR expired" (41).
                if type == .enrol { throw BackendError.enrolQRExpired }
                throw status == .pending ? BackendError.tokenExpired : BackendError.tokenAlreadyRedeemed
            }
            status = .redeemed
            return []
        case .confirmed:
            try expect(.redeemed, at: now)
            guard skipsSecondFactor, type == .login else {
                status = .confirmed
                return [.issueChallenge]
            }
            status = .loggedin
            return [.issueChallenge, .clearOTPFailures]
        case .accountEnrolled:
            try expect(.confirmed, of: [.enrol], "an enrolment", at: now)
            status = .enrolled
            return []
        case .transactionSigned:
            try expect(.confirmed, of: [.transaction], "a transaction", at: now)
            return [.issueChallenge]
        case .secondFactorAccepted:
            try expect(.confirmed, of: [.login, .transaction] + WireSessionType.management, "a login, transaction or management flow", at: now)
            switch type {
            case .transaction:
                status = .signed
                return []
            case .changePin, .addBiometrics:
                status = .verified
                return [.issueChallenge]
            case .removeBiometrics:
                status = .completed
                return [.removeBiometricKey]
            default:
                status = .loggedin
                return [.clearOTPFailures]
            }
        case .secondFactorRejected(let blocked, let biometricsRegistered):
            try expect(.confirmed, at: now)
            // docs/behaviour.md#failure-counting-blocking-and-penalties: a blocked PIN fails the
            // session unless a biometric key could still unblock it (never during enrolment).
            guard blocked, !(biometricsRegistered && type != .enrol) else { return [.issueChallenge] }
            status = .failed
            failure = "PIN_BLOCKED"
            return []
        case .factorSet:
            try expect(.verified, of: [.changePin, .addBiometrics], "a changePin or addBiometrics session", at: now)
            status = .completed
            return []
        case .keyRotated:
            try expect(.redeemed, of: [.upgrade], "an upgrade", at: now)
            status = .completed
            return []
        case .otpAccepted:
            guard !status.isFinal else { throw BackendError.wrongState(status, expected: "not finished") }
            guard expiresAt > now else { throw BackendError.sessionExpired }
            guard type == .login else { throw BackendError.wrongState(status, expected: "a login") }
            status = .loggedin
            return [.clearOTPFailures]
        case .abandoned(let code):
            guard !status.isFinal else { throw BackendError.wrongState(status, expected: "not finished") }
            status = code == "USER_CANCELED" ? .canceled : .failed
            failure = code
            return []
        }
    }

    /// A step of a running session: not expired, at `required`, and (when given) of one of `types`.
    private func expect(_ required: SessionStatus, of types: [WireSessionType]? = nil, _ what: String = "", at now: Date) throws(BackendError) {
        guard expiresAt > now else { throw BackendError.sessionExpired }
        guard status == required else { throw BackendError.wrongState(status, expected: required.rawValue) }
        if let types, !types.contains(where: { $0 == type }) { throw BackendError.wrongState(status, expected: what) }
    }
}

extension SessionRecord {
    var machine: SessionMachine {
        SessionMachine(status: status, failure: failure, type: sessionType, expiresAt: expiresAt, skipsSecondFactor: skipSecondFactor)
    }

    /// Carries `event` through the session's machine: the record takes the new status, failure
    /// and (when the machine asks) a fresh challenge; the actions left are the caller's.
    mutating func handle(_ event: SessionMachine.Event, at now: Date) throws(BackendError) -> [SessionMachine.Action] {
        var machine = machine
        let actions = try machine.handle(event, at: now)
        status = machine.status
        failure = machine.failure
        updatedAt = now
        if actions.contains(.issueChallenge) { challenge = try DemoBackend.randomToken() }
        return actions.filter { $0 != .issueChallenge }
    }

    /// The status as the session's views show it, expiry read at `now`.
    func status(at now: Date) -> SessionStatus { machine.status(at: now) }
}
