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

/// A seeded random generator (SplitMix64), so a failing round of a property test can be run again.
public struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
