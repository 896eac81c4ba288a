import Foundation
import Synchronization

/// The server's time under a test's control (`serve --clock manual`, docs/recording.md): it stands
/// still until `POST /api/clock` moves it forward. A wait (a retry's back-off, a delayed push, a
/// simulated time-out) ends when this clock reaches its end, not the wall clock, so that a test
/// which would wait an expiry out moves the clock instead of sleeping.
public final class ManualClock: Sendable {
    private struct Sleeper {
        let deadline: Date
        let wake: CheckedContinuation<Void, any Error>
    }

    /// A wait from its start: cancelled before it was registered, or sleeping. Woken, it is gone.
    private enum Wait {
        case starting, cancelled
        case sleeping(Sleeper)
    }

    private struct State {
        var now: Date
        var waits: [UInt64: Wait] = [:]
        var nextId: UInt64 = 0
    }

    private let state: Mutex<State>

    /// The most one move may be: a year, so that a mistyped number cannot run the dates off.
    public static let longestMove: TimeInterval = 366 * 24 * 3600

    public init(start: Date) {
        state = Mutex(State(now: start))
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// Waits asleep on this clock (tests watch a wait begin before they move the clock).
    var sleeping: Int {
        state.withLock { state in
            state.waits.values.count { if case .sleeping = $0 { true } else { false } }
        }
    }

    /// Moves time forward by `seconds` (more than 0, at most `longestMove`) and ends the waits it
    /// reaches; answers the new time.
    @discardableResult
    public func advance(by seconds: TimeInterval) -> Date {
        precondition(seconds > 0 && seconds <= Self.longestMove, "checked by the caller")
        let (now, due) = state.withLock { state in
            state.now += seconds
            var due: [Sleeper] = []
            for (id, wait) in state.waits {
                if case .sleeping(let sleeper) = wait, sleeper.deadline <= state.now {
                    due.append(sleeper)
                    state.waits[id] = nil
                }
            }
            return (state.now, due)
        }
        for sleeper in due { sleeper.wake.resume() }
        return now
    }

    /// Waits until the clock has moved `duration` on from now; throws CancellationError when
    /// the task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        guard seconds > 0 else { return try Task.checkCancellation() }
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            state.waits[state.nextId] = .starting
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    guard case .starting = state.waits[id] else {
                        state.waits[id] = nil
                        return true
                    }
                    state.waits[id] = .sleeping(Sleeper(deadline: state.now + seconds, wake: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                switch state.waits[id] {
                case .starting:
                    state.waits[id] = .cancelled
                    return nil
                case .sleeping(let sleeper):
                    state.waits[id] = nil
                    return sleeper
                case .cancelled, nil:
                    return nil
                }
            }
            sleeper?.wake.resume(throwing: CancellationError())
        }
    }
}
