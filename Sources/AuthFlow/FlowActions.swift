/// What the phone must do after an event. The machine decides; the phone carries it out over
/// HTTP and feeds the outcome back as the next event.
public enum FlowAction: Equatable, Sendable {
    /// Nothing to do beyond publishing the new flow.
    case none
    /// Tell the backend the user confirmed the session (with the chosen account for a login or a
    /// transaction), passing the user's optional free text on.
    case confirmSession(accountID: String?, userInput: String?)
    /// Sign the exact transaction text shown to the user with the account's key.
    case confirmTransaction(accountID: String)
    /// Create the account's keys and register them, with a new PIN or proof of the existing one,
    /// and with a new PIN the biometric key too when the user set both at once.
    case completeEnrolment(PinUse, withBiometrics: Bool = false, userInput: String? = nil)
    /// Prove a second factor to the Second Factor Server, passing the user's optional free text
    /// on; once accepted, carry out `then`.
    case verifySecondFactor(accountID: String, with: SecondFactorType, then: Completion?, userInput: String? = nil)
    /// CHANGE_PIN after verification: register the new PIN.
    case setPin(accountID: String)
    /// CHANGE_PIN the Nevis way: prove the old PIN and register the new one in one go.
    case changePin(accountID: String)
    /// ADD_BIOMETRICS: the sensor confirmed the user; make the biometric key (bound to the
    /// enrolled set), then carry out `then`.
    case createBiometricKey(accountID: String, then: Completion?)
    /// HEADLESS_UPGRADE: replace the account key by a new one, signed by both.
    case rotateAccountKey(accountID: String)
    /// Tell the backend the flow ended without success.
    case abandonSession(FlowError)

    public enum PinUse: Equatable, Sendable {
        case setNew
        case proveExisting
    }

    /// The change a management flow makes once its last factor is accepted.
    public enum Completion: Equatable, Sendable {
        case registerBiometricKey
        case removeBiometricKey
    }
}

/// The Second Factor Server's answer to a factor.
public enum SecondFactorOutcome: Equatable, Sendable {
    case accepted(SecondFactorAccount)
    case rejected(SecondFactorAccount)
    /// Refused unseen during a penalty: the counters did not change (`penalisedFor` says how long).
    case penalised(SecondFactorAccount)
}

/// The SDK options that shape a flow (docs/behaviour.md#second-factor-management), as the phone has them set.
public struct FlowOptions: Sendable, Equatable {
    /// The `showBiometrics` conditions (docs/behaviour.md#biometrics) other than the flow type, worked out by the phone:
    /// sensor support, an enrolled feature, an enabled biometric key, `biometricsDisabled` off,
    /// the PIN-less limits not reached.
    public var biometricsAvailable: Bool
    /// A biometric neither verifies a PIN change nor clears PIN failures.
    public var disallowPinChangeWithBiometric: Bool
    /// ADD_BIOMETRICS asks the biometric before the PIN.
    public var legacyBioAddFlow: Bool
    /// The phone could set a biometric (a sensor with a feature enrolled, biometrics not switched
    /// off): an enrolment that sets the PIN offers it too (docs/behaviour.md#second-factor-management).
    public var biometricsCanBeSet: Bool
    public var pinChangeStyle: PinChangeStyle

    public enum PinChangeStyle: String, Codable, Sendable, CaseIterable {
        /// VERIFY the old factor, then SET the new PIN.
        case nextAuth
        /// Old and new PIN together in one SET; wrong old PINs ask again until PIN_LOCKED.
        case nevis
    }

    public init(
        biometricsAvailable: Bool = false, disallowPinChangeWithBiometric: Bool = false,
        legacyBioAddFlow: Bool = false, pinChangeStyle: PinChangeStyle = .nextAuth, biometricsCanBeSet: Bool = false
    ) {
        self.biometricsAvailable = biometricsAvailable
        self.biometricsCanBeSet = biometricsCanBeSet
        self.disallowPinChangeWithBiometric = disallowPinChangeWithBiometric
        self.legacyBioAddFlow = legacyBioAddFlow
        self.pinChangeStyle = pinChangeStyle
    }
}
