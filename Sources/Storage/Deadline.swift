/// `work`'s answer, or `late()` when it has none within `limit`. Work still running then goes on
/// to its own end, which its own deadline bounds: a database that accepts a connection and never
/// answers holds a pool's request for its whole timeout, longer than a caller who must answer
/// (a readiness probe, a start that says why it cannot) may wait.
func answer<T: Sendable>(
    within limit: Duration, else late: @escaping @Sendable () -> T, _ work: @escaping @Sendable () async -> T
) async -> T {
    let (answers, answer) = AsyncStream<T>.makeStream()
    Task {
        answer.yield(await work())
        answer.finish()
    }
    let timer = Task {
        try await Task.sleep(for: limit)
        answer.yield(late())
        answer.finish()
    }
    defer { timer.cancel() }
    for await first in answers { return first }
    return late()
}
