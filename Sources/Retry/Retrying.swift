/// How one attempt went, as the caller judges it: only what can succeed later is retried.
public enum AttemptOutcome<Value: Sendable>: Sendable {
    case success(Value)
    /// Worth another try (connection failure, timeout, 429, 500, 503); `retryAfter` is the
    /// server's `Retry-After`, which the next wait honours.
    case retryable(reason: String, retryAfter: Duration?)
    /// Trying again cannot help (a 4xx refusal such as UNREGISTERED or NameAlreadyExists).
    case failure(reason: String)
}

/// One attempt as it is reported: its number, what happened, and the wait before it.
public struct AttemptRecord: Sendable, Equatable, Codable {
    public var number: Int
    public var waitedBefore: Duration
    public var outcome: String
}

/// Runs attempts under a policy. Waiting goes through `sleep` and jitter through `random`, so a
/// test runs the whole schedule at once and sees the exact waits.
public struct Retrying: Sendable {
    public let policy: RetryPolicy
    let sleep: @Sendable (Duration) async throws -> Void
    let random: @Sendable () -> Double

    public init(policy: RetryPolicy, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.policy = policy
        self.sleep = sleep
        self.random = random
    }

    /// The value of the first successful attempt (nil if none), and every attempt made.
    public func run<Value: Sendable>(_ attempt: @Sendable (Int) async -> AttemptOutcome<Value>) async -> (Value?, [AttemptRecord]) {
        var records: [AttemptRecord] = []
        var wait = Duration.zero
        for number in 1...(policy.maxRetries + 1) {
            if wait > .zero {
                do { try await sleep(wait) } catch { break } // cancelled
            }
            switch await attempt(number) {
            case .success(let value):
                records.append(AttemptRecord(number: number, waitedBefore: wait, outcome: "success"))
                return (value, records)
            case .failure(let reason):
                records.append(AttemptRecord(number: number, waitedBefore: wait, outcome: reason))
                return (nil, records)
            case .retryable(let reason, let retryAfter):
                records.append(AttemptRecord(number: number, waitedBefore: wait, outcome: reason))
                wait = max(policy.delay(beforeRetry: number, unit: random()), retryAfter ?? .zero)
            }
        }
        return (nil, records)
    }
}
