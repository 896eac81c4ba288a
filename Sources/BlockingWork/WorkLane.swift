import Glibc
import NIOPosix
import Synchronization

/// One kind of work that holds a thread for long (a picture's decoding and scan, a PIN's
/// Argon2id), run on threads of its own. On Linux Swift's cooperative pool is Dispatch's global
/// pool, a thread a core: blocking work there, or on `DispatchQueue.global()`, holds the threads
/// that answer every request and WebSocket, timers included. A lane may run its threads at a
/// lower priority than the server's (`niceness`), and it admits at most `capacity` pieces of work
/// at once (running and waiting): past that a request is refused at once (`Busy`, with how long
/// to wait) instead of queueing for seconds.
public final class WorkLane: Sendable {
    public let name: String
    /// Running and waiting work, abandoned work included until it ends: the bound is on what the
    /// threads really have to do.
    public let capacity: Int
    /// What a refused request is told to wait.
    public let retryAfter: Duration
    /// How much lower than the server's its threads' priority is (a nice value, 0 to 19). A lowered
    /// lane yields the cores to the requests, but starves while they keep the cores busy.
    public let niceness: Int32
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
        name: String, threads: Int, capacity: Int, retryAfter: Duration, niceness: Int32 = 0,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.name = name
        self.capacity = capacity
        self.retryAfter = retryAfter
        self.niceness = niceness
        self.sleep = sleep
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Pieces of work admitted and not yet ended.
    public var load: Int { admitted.withLock { $0 } }

    /// A place in the lane taken ahead of its work, for a caller that must say "busy" before it
    /// changes anything and runs the work further on; a place never used is given back when the
    /// reservation goes.
    public final class Reservation: Sendable {
        private let lane: WorkLane
        private let held = Atomic(true)

        init(_ lane: WorkLane) { self.lane = lane }

        /// The place, for the one piece of work that uses it.
        func take() -> Bool { held.exchange(false, ordering: .relaxed) }

        deinit { if take() { lane.release() } }
    }

    /// Takes a place in the lane now, or refuses at once when it is full.
    public func reserve() throws(Busy) -> Reservation {
        guard admit() else { throw Busy(lane: name, retryAfter: retryAfter) }
        return Reservation(self)
    }

    private func admit() -> Bool {
        admitted.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
    }

    private func release() { admitted.withLock { $0 -= 1 } }

    /// Runs `body` on the lane's threads in the place `reservation` took, or else if the lane has
    /// room; with a `deadline`, the caller is answered `TimedOut` once it passes, whether the work
    /// has started or not. The deadline's timer runs on the caller's side, which the lane's work
    /// never holds, so it fires on time.
    public func run<T: Sendable>(
        deadline: Duration? = nil, in reservation: Reservation? = nil, _ body: @escaping @Sendable (Abandonment) throws -> T
    ) async throws -> T {
        guard reservation?.take() == true || admit() else { throw Busy(lane: name, retryAfter: retryAfter) }
        let abandonment = Abandonment()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let answer = FirstAnswer(continuation)
            pool.submit { state in
                defer { self.release() }
                guard state == .active, !abandonment.isAbandoned else {
                    answer.give(.failure(TimedOut()))
                    return
                }
                if self.niceness > 0 { Self.lowerThisThreadsPriority(by: self.niceness) }
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

    /// On Linux a thread's nice value is its own (`who` 0 is the calling thread). Set on each
    /// piece of work (a system call, against work of milliseconds).
    private static func lowerThisThreadsPriority(by niceness: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
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
