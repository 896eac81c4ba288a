import Faults
import Foundation
import Synchronization
import TestDoubles
import Testing

@Suite struct FaultInjectorTests {
    let clock = TestClock()

    @Test func aCountedFaultIsUsedUpAndAPhonesOwnComesFirst() throws {
        let faults = FaultInjector(now: { [clock] in clock.now() })
        _ = try faults.add(target: .backend, kind: .unreachable, count: nil, lifetime: 60)
        _ = try faults.add(target: .phone("p1"), kind: .status(code: 503, retryAfter: 2), count: 2, lifetime: 60)
        let targets: [FaultTarget] = [.phone("p1"), .backend]
        #expect(faults.strike(targets, requests: true) == .status(code: 503, retryAfter: 2))
        #expect(faults.strike(targets, requests: true) == .status(code: 503, retryAfter: 2))
        #expect(faults.strike(targets, requests: true) == .unreachable)
        #expect(faults.strike([.phone("p2"), .backend], requests: true) == .unreachable)
        // push faults strike pushes only, request faults requests only
        #expect(faults.strike([.push], requests: true) == nil)
        #expect(faults.active.count == 1)
    }

    @Test func aFaultExpiresByItself() throws {
        let faults = FaultInjector(now: { [clock] in clock.now() })
        let fault = try faults.add(target: .push, kind: .drop, count: nil, lifetime: 30)
        #expect(faults.strike([.push], requests: false) == .drop)
        clock.advance(30)
        #expect(faults.strike([.push], requests: false) == nil)
        #expect(faults.active.isEmpty)
        #expect(!faults.remove(id: fault.id))
    }

    /// What waits out a back-off hears each fault that stops striking, however it went (removed,
    /// used up, expired, cleared), and nothing when one is added.
    @Test func eachFaultThatStopsStrikingIsToldOnce() throws {
        let faults = FaultInjector(now: { [clock] in clock.now() })
        let lifted = Mutex<[String]>([])
        let subscription = faults.lifted.forward { gone in lifted.withLock { $0 += gone.map(\.id) } }
        defer { subscription.cancel() }
        let removed = try faults.add(target: .backend, kind: .unreachable, count: nil, lifetime: 60)
        let usedUp = try faults.add(target: .phone("p1"), kind: .unreachable, count: 1, lifetime: 60)
        let expiring = try faults.add(target: .push, kind: .drop, count: nil, lifetime: 10)
        let cleared = try faults.add(target: .sms, kind: .drop, count: nil, lifetime: 60)
        #expect(lifted.withLock { $0 }.isEmpty)

        #expect(faults.remove(id: removed.id))
        _ = faults.strike([.phone("p1")], requests: true)
        clock.advance(10)
        _ = faults.strike([.push], requests: false)
        faults.clear()

        #expect(lifted.withLock { $0 } == [removed.id, usedUp.id, expiring.id, cleared.id])
    }

    @Test func latencyStaysWithinItsBounds() {
        for unit in [0.0, 0.5, 0.999_999_9] {
            let wait = FaultInjector(random: { unit }).latency(200, 400)
            #expect(wait >= .milliseconds(200) && wait < .milliseconds(400))
        }
    }

    @Test(arguments: [
        (FaultTarget.backend, FaultKind.status(code: 302, retryAfter: nil), 1, "status"),
        (.backend, .status(code: 503, retryAfter: 4000), 1, "retryAfter"),
        (.backend, .latency(minimum: 500, maximum: 100), 1, "maximumMs"),
        (.phone("p"), .delay(seconds: 5), 1, "kind"),
        (.push, .delay(seconds: 0), 1, "delaySeconds"),
        (.backend, .offline, 1, "kind"),
        (.backend, .hang, 0, "count"),
    ])
    func nonsenseIsRefusedByName(target: FaultTarget, kind: FaultKind, count: Int, field: String) {
        let faults = FaultInjector()
        let error = #expect(throws: FaultError.self) { try faults.add(target: target, kind: kind, count: count, lifetime: 60) }
        #expect(error?.message.contains("'\(field)'") == true)
        #expect(faults.active.isEmpty)
    }
}
