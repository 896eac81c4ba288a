import BlockingWork
import Dispatch
import Glibc
import Synchronization
import Testing

/// The lane bounds its work, answers a deadline while its threads are held, skips work whose
/// caller gave up, and runs below the server's priority.
@Suite struct WorkLaneTests {
    /// Work that holds the lane's thread until the test lets it go.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        let entered = AsyncStream<Void>.makeStream()
        func hold() {
            entered.continuation.yield()
            semaphore.wait()
        }
        func open(_ count: Int = 1) { for _ in 0..<count { semaphore.signal() } }
    }

    final class Flag: Sendable {
        private let raised = Atomic(false)
        var isRaised: Bool { raised.load(ordering: .relaxed) }
        func raise() { raised.store(true, ordering: .relaxed) }
    }

    @Test func aFullLaneRefusesAtOnceAndTakesWorkAgainOnceThereIsRoom() async throws {
        let lane = WorkLane(name: "test", threads: 1, capacity: 2, retryAfter: .seconds(3))
        let gate = Gate()
        let first = Task { try await lane.run { _ in gate.hold() } }
        let second = Task { try await lane.run { _ in gate.hold() } }
        while lane.load < 2 { await Task.yield() }
        await #expect {
            try await lane.run { _ in 1 }
        } throws: { error in
            (error as? WorkLane.Busy).map { $0.lane == "test" && $0.retryAfter == .seconds(3) } ?? false
        }
        gate.open(2)
        try await first.value
        try await second.value
        #expect(try await lane.run { _ in 42 } == 42)
        #expect(lane.load == 0)
        await lane.shutdown()
    }

    /// The deadline answers while the lane's only thread is held; the work it cut short, still
    /// waiting then, never runs, and leaves the lane once its turn comes.
    @Test func aDeadlineAnswersWhileTheThreadsAreHeldAndItsWorkNeverRuns() async throws {
        let (deadlines, passDeadline) = AsyncStream<Void>.makeStream()
        let lane = WorkLane(name: "test", threads: 1, capacity: 4, retryAfter: .seconds(1)) { _ in
            for await _ in deadlines { break }
        }
        let gate = Gate()
        let holder = Task { try await lane.run { _ in gate.hold() } }
        for await _ in gate.entered.stream { break }
        let ran = Flag()
        let late = Task { try await lane.run(deadline: .seconds(5)) { _ in ran.raise() } }
        while lane.load < 2 { await Task.yield() }
        passDeadline.yield()
        await #expect(throws: WorkLane.TimedOut.self) { try await late.value }
        #expect(lane.load == 2, "the work cut short still holds its place until its turn")
        gate.open()
        try await holder.value
        while lane.load > 0 { await Task.yield() }
        #expect(!ran.isRaised)
        await lane.shutdown()
    }

    @Test func workRunsOffTheCallersThreadsBelowTheirPriority() async throws {
        let lane = WorkLane(name: "test", threads: 1, capacity: 1, retryAfter: .seconds(1), niceness: 10)
        #expect(try await lane.run { _ in getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) } == 10)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == 0)
        await lane.shutdown()
    }

    /// A place taken ahead is the work's when it runs, and given back if the work never comes.
    @Test func aReservedPlaceIsTheWorksOrGivenBack() async throws {
        let lane = WorkLane(name: "test", threads: 1, capacity: 1, retryAfter: .seconds(1))
        var place: WorkLane.Reservation? = try lane.reserve()
        #expect(lane.load == 1)
        #expect(throws: WorkLane.Busy.self) { try lane.reserve() }
        #expect(try await lane.run(in: place) { _ in lane.load } == 1, "the work ran in the place taken, not in another")
        #expect(lane.load == 0)
        place = try lane.reserve()
        place = nil
        #expect(lane.load == 0, "a place never used is given back")
        _ = place
        await lane.shutdown()
    }

    @Test func theWorksOwnErrorPassesThrough() async throws {
        struct Refused: Error {}
        let lane = WorkLane(name: "test", threads: 1, capacity: 1, retryAfter: .seconds(1))
        await #expect(throws: Refused.self) { try await lane.run { _ in throw Refused() } }
        #expect(lane.load == 0)
        await lane.shutdown()
    }
}
