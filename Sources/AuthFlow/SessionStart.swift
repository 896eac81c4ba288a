import Foundation

/// nextAuth's session lifecycle before a flow starts (docs/behaviour.md#offline-otp). Right after a QR code is
/// scanned the session is STARTING: when the phone holds accounts at the server the code names,
/// an offline OTP can be generated for it (OTPAvailable) while the phone fetches the session.
/// If the backend cannot be reached the phone keeps trying with backoff, and the screen counts
/// down before it offers the OTP by itself (at once when the phone knows it is offline). Once
/// the session arrives it is READY_FOR_USER_INTERACTION and the OTP is withdrawn; generating the
/// OTP ends the session (SessionStop), so a late connection cannot start a second login.
public struct SessionStart: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case starting = "STARTING"
        case ready = "READY_FOR_USER_INTERACTION"
        case stopped = "STOPPED"
    }

    /// What the phone does next with the backend.
    public enum Action: Equatable, Sendable {
        /// Nothing more: the session is ready, stopped, or out of attempts.
        case none
        /// Fetch again after this many seconds.
        case fetchAfter(TimeInterval)
    }

    public var id: String
    public var state: State
    /// The backend the QR code names, as `scheme://host:port`.
    public var server: String
    /// The phone's accounts at that server: the ones an OTP can be generated for.
    public var accounts: [AccountSummary]
    public var otpAvailable: Bool
    public var connectionError: Bool
    /// Attempts made to fetch the session, and when the next one starts (nil: none planned).
    public var attempts: Int
    public var nextAttemptAt: Date?
    /// The end of the countdown, when the screen offers the OTP without being asked.
    public var otpOfferAt: Date?
    /// The last failure: a connection error while retrying, or the refusal that stopped it.
    public var error: FlowError?
    /// Once generated: the code as shown (`XXXXXX XXXXXX`) and the account it is for.
    public var otp: String?
    public var otpAccountId: String?
    /// Why a stopped session stopped: `OTP_GENERATED`, `USER_CANCELED`, or the refusal's code.
    public var stopReason: String?

    /// A QR code was scanned; the phone fetches the session at once.
    public init(id: String, server: String, accounts: [AccountSummary]) {
        self.id = id
        self.server = server
        self.accounts = accounts
        state = .starting
        otpAvailable = !accounts.isEmpty
        connectionError = false
        attempts = 0
    }

    /// A fetch failed. A connection error (`retryIn` seconds set) with an OTP to offer keeps the
    /// session STARTING and plans the next attempt; without one more attempt the OTP stays on
    /// offer. Anything else, or nothing to offer, stops the session.
    public mutating func fetchFailed(
        _ failure: FlowError, connection: Bool, retryIn: TimeInterval?, phoneOffline: Bool,
        countdown: TimeInterval, now: Date
    ) -> Action {
        guard state == .starting else { return .none }
        attempts += 1
        error = failure
        connectionError = connection
        guard connection, otpAvailable else {
            stop(failure.code)
            return .none
        }
        if otpOfferAt == nil { otpOfferAt = phoneOffline ? now : now.addingTimeInterval(countdown) }
        guard let retryIn else {
            nextAttemptAt = nil
            return .none
        }
        nextAttemptAt = now.addingTimeInterval(retryIn)
        return .fetchAfter(retryIn)
    }

    /// The session arrived: the flow starts and the OTP is no longer offered. False when the
    /// session had already stopped (the OTP was generated or the user cancelled first).
    public mutating func fetched() -> Bool {
        guard state == .starting else { return false }
        attempts += 1
        state = .ready
        otpAvailable = false
        connectionError = false
        nextAttemptAt = nil
        error = nil
        return true
    }

    /// The account an OTP is asked for: the one given, or the only one there is.
    public func otpAccount(_ requested: String?) throws(FlowInputError) -> AccountSummary {
        guard state == .starting, otpAvailable else {
            throw FlowInputError(
                code: "OTP_NOT_AVAILABLE",
                message: "an OTP can be generated only while a scanned session is starting (now \(state.rawValue))")
        }
        if let requested {
            guard let account = accounts.first(where: { $0.id == requested }) else { throw .unknownAccount(requested) }
            return account
        }
        guard accounts.count == 1, let only = accounts.first else { throw .accountRequired }
        return only
    }

    /// The OTP was computed and shown: the session ends.
    public mutating func otpGenerated(_ code: String, accountId: String) {
        otp = code
        otpAccountId = accountId
        stop("OTP_GENERATED")
    }

    public mutating func cancel() throws(FlowInputError) {
        guard state == .starting else {
            throw FlowInputError(code: "UNEXPECTED_INPUT", message: "cancel does not fit the session now (\(state.rawValue))")
        }
        stop(FlowError.userCanceled.code)
    }

    private mutating func stop(_ reason: String) {
        state = .stopped
        stopReason = reason
        otpAvailable = false
        nextAttemptAt = nil
    }
}
