import AuthFlow
import BackendAPI
import Foundation

/// What the app holds of one phone while it runs.
struct SDKPhone: Sendable {
    var flow: ActiveFlow?
    /// The last scanned session before its flow (docs/behaviour.md#offline-otp), with its OTP offer.
    var sessionStart: StartingSession?
    /// An out-of-band payload is being redeemed: a second one must wait its turn.
    var starting = false
}

/// A flow together with what the phone knows of its session.
struct ActiveFlow: Sendable {
    var machine: FlowMachine
    var sessionId: String
    var serverURL: String
    var server: WireServer
    var challenge: String
    /// ADD_BIOMETRICS with `legacyBioAddFlow`: the key made at SET, registered after the PIN.
    var pendingBiometricKey: Data?
    /// The auto-answer rule that answered this flow so far: it answers the later steps too.
    var answeringRule: AutoAnswerRule?
}

extension SecondFactorAccount {
    /// The account's second-factor standing as the backend's answer gives it.
    init(_ wire: WireSecondFactorAccount) {
        self.init(
            isBlocked: wire.isBlocked, failedAttempts: wire.failedAttempts, maxAttempts: wire.maxAttempts,
            penalisedFor: wire.penalisedFor, penalisedUntil: wire.penalisedUntil)
    }
}
