/// The HTTP answers that can succeed later (too many requests, a server error, unavailable):
/// the phone's requests and the backend's FCM sends judge a status by the same list.
public enum HTTPRetry {
    public static let statuses: Set<Int> = [429, 500, 503]
}

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
    /// Hears each retry as it is planned (the server counts them for `/metrics`).
    let onRetry: @Sendable () -> Void

    public init(
        policy: RetryPolicy, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, onRetry: @escaping @Sendable () -> Void = {}
    ) {
        self.policy = policy
        self.sleep = sleep
        self.random = random
        self.onRetry = onRetry
    }

    /// The value of the first successful attempt (nil if none), and every attempt made.
    /// `observe` hears each attempt as it ends, with the wait before the next one (nil: none
    /// follows), so a screen can show "attempt 2 of 4, next in 3.2 s".
    public func run<Value: Sendable>(
        _ attempt: @Sendable (Int) async -> AttemptOutcome<Value>,
        observe: @Sendable (AttemptRecord, Duration?) async -> Void = { _, _ in }
    ) async -> (Value?, [AttemptRecord]) {
        let series = await run(waitingAtMost: nil, attempt, observe: observe)
        return (series.value, series.attempts)
    }

    /// How a series ended: its value, its attempts, and, when it stopped at a wait longer than
    /// the caller could give, how long that wait was.
    public struct Series<Value: Sendable>: Sendable {
        public var value: Value?
        public var attempts: [AttemptRecord]
        public var deferredBy: Duration?

        init(value: Value? = nil, attempts: [AttemptRecord], deferredBy: Duration? = nil) {
            self.value = value
            self.attempts = attempts
            self.deferredBy = deferredBy
        }
    }

    /// As `run`, but a wait longer than `longestWait` (a `Retry-After` of a minute, say) is not
    /// waited for: the series stops there and says how long the wait was, so a caller that must
    /// answer now (a request) can leave the rest to one that may wait.
    public func run<Value: Sendable>(
        waitingAtMost longestWait: Duration?,
        _ attempt: @Sendable (Int) async -> AttemptOutcome<Value>,
        observe: @Sendable (AttemptRecord, Duration?) async -> Void = { _, _ in }
    ) async -> Series<Value> {
        var records: [AttemptRecord] = []
        var wait = Duration.zero
        let attempts = policy.maxRetries + 1
        for number in 1...attempts {
            if wait > .zero {
                do { try await sleep(wait) } catch { break }  // cancelled
            }
            if Task.isCancelled { break }
            let record: AttemptRecord
            switch await attempt(number) {
            case .success(let value):
                record = AttemptRecord(number: number, waitedBefore: wait, outcome: "success")
                records.append(record)
                await observe(record, nil)
                return Series(value: value, attempts: records)
            case .failure(let reason):
                record = AttemptRecord(number: number, waitedBefore: wait, outcome: reason)
                records.append(record)
                await observe(record, nil)
                return Series(attempts: records)
            case .retryable(let reason, let retryAfter):
                record = AttemptRecord(number: number, waitedBefore: wait, outcome: reason)
                records.append(record)
                let next = policy.wait(beforeRetry: number, unit: random(), retryAfter: retryAfter)
                if let next, let longestWait, next > longestWait {
                    await observe(record, nil)
                    return Series(attempts: records, deferredBy: next)
                }
                if next != nil { onRetry() }
                await observe(record, next)
                wait = next ?? .zero
            }
        }
        return Series(attempts: records)
    }
}
