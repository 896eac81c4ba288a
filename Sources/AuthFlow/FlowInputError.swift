/// User input that does not fit the flow as it is. The flow is left unchanged.
public struct FlowInputError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    static func unexpected(_ action: String, _ flow: Flow) -> FlowInputError {
        let now = flow.state == .waitForInput ? (flow.currentInteraction?.type.rawValue ?? "no interaction") : flow.state.rawValue
        return FlowInputError(code: "UNEXPECTED_INPUT", message: "\(action) does not fit the flow now (\(now))")
    }
    static func unknownAccount(_ id: String) -> FlowInputError {
        FlowInputError(code: "UNKNOWN_ACCOUNT", message: "account \(id) is not one of the accounts offered")
    }
    static let accountRequired = FlowInputError(
        code: "ACCOUNT_REQUIRED", message: "choose one of the offered accounts to log in with")
    static let accountNotExpected = FlowInputError(
        code: "ACCOUNT_NOT_EXPECTED", message: "an enrolment creates a new account; do not pick an existing one")
}

extension FlowInputError {
    static func factorNotOffered(_ factor: SecondFactorType, _ flow: Flow, with other: SecondFactorType? = nil) -> FlowInputError {
        let offered = flow.currentInteraction?.secondFactorInfo?.allowedSecondFactorTypes.map(\.rawValue).joined(separator: " or ") ?? "none"
        let given = other.map { "\(factor.rawValue) together with \($0.rawValue)" } ?? factor.rawValue
        return FlowInputError(code: "FACTOR_NOT_OFFERED", message: "\(given) is not offered here (offered: \(offered))")
    }
    static func userInputNotExpected(_ type: FlowType) -> FlowInputError {
        FlowInputError(code: "USER_INPUT_NOT_EXPECTED", message: "a \(type.rawValue) flow has no relying party to take 'userInput'")
    }
    /// An interaction's required factors must all be in the input (seed 000).
    static func factorRequired(_ factor: SecondFactorType) -> FlowInputError {
        FlowInputError(code: "FACTOR_REQUIRED", message: "\(factor.rawValue) is required here; give it with the other factors")
    }
}
