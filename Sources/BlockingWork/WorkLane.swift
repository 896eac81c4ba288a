import Glibc
import NIOPosix
import Synchronization

/// One kind of work that holds a thread for long (a picture's decoding and scan, a PIN's
/// Argon2id), run on threads of its own. On Linux Swift's cooperative pool is Dispatch's global
/// pool, a thread a core: blocking work there, or on `DispatchQueue.global()`, holds the threads
/// that answer every request and WebSocket, timers included. The lane's threads run at a lower
/// priority than the server's, and the lane admits at most `capacity` pieces of work at once
/// (running and waiting): past that a request is refused at once (`Busy`, with how long to wait)
/// instead of queueing for seconds.
public final class WorkLane: Sendable {
    public let name: String
    /// Running and waiting work, abandoned work included until it ends: the bound is on what the
    /// threads really have to do.
    public let capacity: Int
    /// What a refused request is told to wait.
    public let retryAfter: Duration
    private let pool: NIOThreadPool
    private let admitted = Mutex(0)
    /// The deadline's wait (tests end it by hand).
    private let sleep: @Sendable (Duration) async throws -> Void

    /// The lane was full: nothing was done.
    public struct Busy: Error, Sendable {
        public let lane: String
        public let retryAfter: Duration
    }

    /// The deadline passed first: the caller was answered, the work stops at its next step.
    public struct TimedOut: Error, Sendable {}

    /// Tells work whose caller gave up (its deadline passed) to stop at its next step; a step
    /// already under way (a library call that cannot be interrupted) runs to its end.
    public final class Abandonment: Sendable {
        private let flag = Atomic(false)
        public var isAbandoned: Bool { flag.load(ordering: .relaxed) }
        func abandon() { flag.store(true, ordering: .relaxed) }
    }

    public init(
        name: String, threads: Int, capacity: Int, retryAfter: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.name = name
        self.capacity = capacity
        self.retryAfter = retryAfter
        self.sleep = sleep
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Pieces of work admitted and not yet ended.
    public var load: Int { admitted.withLock { $0 } }

    /// Refuses at once when the lane is full: for a caller that must say "busy" before it
    /// changes anything. Another caller may still take the last place before `run`.
    public func checkRoom() throws(Busy) {
        guard load < capacity else { throw Busy(lane: name, retryAfter: retryAfter) }
    }

    /// Runs `body` on the lane's threads, if the lane has room; with a `deadline`, the caller is
    /// answered `TimedOut` once it passes, whether the work has started or not. The deadline's
    /// timer runs on the caller's side, which the lane's work never holds, so it fires on time.
    public func run<T: Sendable>(
        deadline: Duration? = nil, _ body: @escaping @Sendable (Abandonment) throws -> T
    ) async throws -> T {
        let admittedNow = admitted.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard admittedNow else { throw Busy(lane: name, retryAfter: retryAfter) }
        let abandonment = Abandonment()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let answer = FirstAnswer(continuation)
            pool.submit { state in
                defer { self.admitted.withLock { $0 -= 1 } }
                guard state == .active, !abandonment.isAbandoned else {
                    answer.give(.failure(TimedOut()))
                    return
                }
                Self.lowerThisThreadsPriority()
                answer.give(Result { try body(abandonment) })
            }
            if let deadline {
                Task {
                    try? await self.sleep(deadline)
                    abandonment.abandon()
                    answer.give(.failure(TimedOut()))
                }
            }
        }
    }

    /// Lets the work that was admitted end, then stops the threads.
    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }

    /// On Linux a thread's nice value is its own (`who` 0 is the calling thread): work here yields
    /// the cores to the threads that answer requests. Set on each piece of work (a system call,
    /// against work of milliseconds).
    private static func lowerThisThreadsPriority() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    }
}

/// Resumes a continuation with whichever answer comes first: the work's or the deadline's.
private final class FirstAnswer<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func give(_ result: Result<T, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}
