import Foundation
import Synchronization

/// A wall clock the test moves by hand (expiry, penalties, rate windows).
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// Records the waits a retry schedule asks for instead of sleeping through them.
public final class SleepRecorder: Sendable {
    private let waits = Mutex<[Duration]>([])

    public init() {}

    public var recorded: [Duration] { waits.withLock { $0 } }

    public func sleep(_ duration: Duration) { waits.withLock { $0.append(duration) } }
}
