import Retry
import TestDoubles
import Testing

@Suite struct RetryPolicyTests {
    @Test func constantWaitsTheSameEveryTime() {
        let policy = RetryPolicy.constant(maxRetries: 3, delay: .seconds(2))
        #expect((1...3).map { policy.delay(beforeRetry: $0, unit: 0.3) } == [.seconds(2), .seconds(2), .seconds(2)])
    }

    @Test func exponentialGrowsUpToItsCapWithFullJitter() {
        let policy = RetryPolicy.exponential(maxRetries: 6, initialDelay: .seconds(1), maximumDelay: .seconds(10), multiplier: 2)
        // With the jitter's top value the ceilings show: 1, 2, 4, 8, then the cap.
        let ceilings = (1...6).map { policy.delay(beforeRetry: $0, unit: 0.999_999) }
        #expect(
            ceilings == [.milliseconds(999), .milliseconds(1999), .milliseconds(3999), .milliseconds(7999), .milliseconds(9999), .milliseconds(9999)])
        #expect(policy.delay(beforeRetry: 3, unit: 0) == .zero)
        #expect(policy.delay(beforeRetry: 3, unit: 0.5) == .seconds(2))
    }

    @Test func seededJitterStaysWithinBounds() {
        var generator = SystemRandomNumberGenerator()
        let policy = RetryPolicy.exponential(maxRetries: 10, initialDelay: .milliseconds(100), maximumDelay: .seconds(5), multiplier: 3)
        for retry in 1...10 {
            for _ in 0..<200 {
                let delay = policy.delay(beforeRetry: retry, unit: Double.random(in: 0..<1, using: &generator))
                #expect(delay >= .zero)
                #expect(delay <= min(.seconds(5), .milliseconds(100) * Int(pow3(retry - 1))))
            }
        }
    }

    func pow3(_ n: Int) -> Int { (0..<n).reduce(1) { p, _ in p * 3 } }

    @Test(arguments: [
        RetryPolicy.constant(maxRetries: -1, delay: .seconds(1)),
        .constant(maxRetries: 101, delay: .seconds(1)),
        .constant(maxRetries: 3, delay: .seconds(-1)),
        .constant(maxRetries: 3, delay: .seconds(3601)),
        .exponential(maxRetries: 3, initialDelay: .seconds(2), maximumDelay: .seconds(1), multiplier: 2),
        .exponential(maxRetries: 3, initialDelay: .seconds(1), maximumDelay: .seconds(2), multiplier: 0.5),
        .exponential(maxRetries: 3, initialDelay: .seconds(1), maximumDelay: .seconds(2), multiplier: .nan),
    ])
    func absurdPoliciesAreRefused(_ policy: RetryPolicy) {
        #expect(throws: RetryPolicyError.self) { try policy.validated() }
    }
}

@Suite struct RetryingTests {
    let policy = RetryPolicy.constant(maxRetries: 3, delay: .seconds(1))

    @Test func retriesUntilSuccessWithTheScheduledWaits() async {
        let sleeper = SleepRecorder()
        let retrying = Retrying(
            policy: .exponential(maxRetries: 4, initialDelay: .seconds(1), maximumDelay: .seconds(60), multiplier: 2),
            sleep: { sleeper.sleep($0) }, random: { 0.5 })
        let (value, attempts) = await retrying.run { n -> AttemptOutcome<String> in
            n < 3 ? .retryable(reason: "503", retryAfter: nil) : .success("ok")
        }
        #expect(value == "ok")
        #expect(attempts.map(\.number) == [1, 2, 3])
        #expect(sleeper.recorded == [.milliseconds(500), .seconds(1)])
    }

    @Test func givesUpAfterMaxRetries() async {
        let sleeper = SleepRecorder()
        let (value, attempts) = await Retrying(policy: policy, sleep: { sleeper.sleep($0) }).run { _ -> AttemptOutcome<Int> in
            .retryable(reason: "no connection", retryAfter: nil)
        }
        #expect(value == nil)
        #expect(attempts.count == 4)
        #expect(sleeper.recorded.count == 3)
    }

    @Test func aFinalFailureIsNotRetried() async {
        let sleeper = SleepRecorder()
        let (_, attempts) = await Retrying(policy: policy, sleep: { sleeper.sleep($0) }).run { _ -> AttemptOutcome<Int> in
            .failure(reason: "UNREGISTERED")
        }
        #expect(attempts.map(\.outcome) == ["UNREGISTERED"])
        #expect(sleeper.recorded.isEmpty)
    }

    @Test func retryAfterIsHonoured() async {
        let sleeper = SleepRecorder()
        let (_, attempts) = await Retrying(policy: policy, sleep: { sleeper.sleep($0) }).run { n -> AttemptOutcome<Int> in
            n == 1 ? .retryable(reason: "503", retryAfter: .seconds(7)) : .success(1)
        }
        #expect(sleeper.recorded == [.seconds(7)])
        #expect(attempts.last?.waitedBefore == .seconds(7))
    }

    /// A wait longer than the caller can give is not waited for: the series stops and says how
    /// long it was; shorter waits are waited as before.
    @Test func aWaitLongerThanTheCallerCanGiveStopsTheSeries() async {
        let sleeper = SleepRecorder()
        let retrying = Retrying(policy: policy, sleep: { sleeper.sleep($0) })
        let series = await retrying.run(waitingAtMost: .seconds(5)) { n -> AttemptOutcome<Int> in
            n == 1 ? .retryable(reason: "503", retryAfter: .seconds(2)) : .retryable(reason: "429", retryAfter: .seconds(60))
        }
        #expect(series.value == nil)
        #expect(series.attempts.map(\.outcome) == ["503", "429"])
        #expect(series.deferredBy == .seconds(60))
        #expect(sleeper.recorded == [.seconds(2)])
    }

    @Test func noneTriesOnce() async {
        let (_, attempts) = await Retrying(policy: .none, sleep: { _ in }).run { _ -> AttemptOutcome<Int> in
            .retryable(reason: "503", retryAfter: nil)
        }
        #expect(attempts.count == 1)
    }
}
