import Foundation

/// When to try a failed request again (the Nevis SDK's policies): never, after a constant
/// delay, or after exponentially growing delays with full jitter, U(0, min(cap, initial·multiplierⁿ⁻¹))
/// (AWS Architecture Blog, "Exponential Backoff and Jitter"), so that many clients that failed
/// together do not retry together.
public enum RetryPolicy: Sendable, Equatable, Codable {
    case none
    case constant(maxRetries: Int, delay: Duration)
    case exponential(maxRetries: Int, initialDelay: Duration, maximumDelay: Duration, multiplier: Double)

    public static let maximumRetries = 100
    public static let maximumDelay = Duration.seconds(3600)

    /// Refuses negative, zero-growth and absurd values with a message that names the field.
    public func validated() throws(RetryPolicyError) -> RetryPolicy {
        switch self {
        case .none:
            break
        case .constant(let retries, let delay):
            try Self.check(retries: retries)
            try Self.check(delay, "delay")
        case .exponential(let retries, let initial, let maximum, let multiplier):
            try Self.check(retries: retries)
            try Self.check(initial, "initialDelay")
            try Self.check(maximum, "maximumDelay")
            guard maximum >= initial else { throw .invalid("maximumDelay", "must not be less than initialDelay") }
            guard multiplier.isFinite, (1...10).contains(multiplier) else { throw .invalid("multiplier", "must be between 1 and 10") }
        }
        return self
    }

    public var maxRetries: Int {
        switch self {
        case .none: 0
        case .constant(let retries, _), .exponential(let retries, _, _, _): retries
        }
    }

    /// The wait before retry number `retry` (1 for the first retry). `unit` is a random number in
    /// [0, 1), the jitter's only source, so a test can give fixed or seeded values.
    public func delay(beforeRetry retry: Int, unit: Double) -> Duration {
        switch self {
        case .none:
            return .zero
        case .constant(_, let delay):
            return delay
        case .exponential(_, let initial, let maximum, let multiplier):
            let ceiling = min(maximum.seconds, initial.seconds * pow(multiplier, Double(max(retry - 1, 0))))
            return .milliseconds(Int((ceiling * min(max(unit, 0), 1) * 1000).rounded(.down)))
        }
    }

    /// The wait before retry number `retry`, at least the server's `Retry-After`; nil when the
    /// retries are used up.
    public func wait(beforeRetry retry: Int, unit: Double, retryAfter: Duration?) -> Duration? {
        guard retry <= maxRetries else { return nil }
        return max(delay(beforeRetry: retry, unit: unit), retryAfter ?? .zero)
    }

    private static func check(retries: Int) throws(RetryPolicyError) {
        guard (0...maximumRetries).contains(retries) else { throw .invalid("maxRetries", "must be between 0 and \(maximumRetries)") }
    }

    private static func check(_ delay: Duration, _ field: String) throws(RetryPolicyError) {
        guard delay >= .zero, delay <= maximumDelay else { throw .invalid(field, "must be between 0 and 3600 seconds") }
    }
}

extension Duration {
    /// The duration in seconds, as a number to compute with.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

public struct RetryPolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    static func invalid(_ field: String, _ reason: String) -> RetryPolicyError {
        RetryPolicyError(code: "INVALID_RETRY_POLICY", message: "the field '\(field)' \(reason)")
    }
}
