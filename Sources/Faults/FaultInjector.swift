import Broadcast
import Foundation
import Identifiers
import Synchronization

/// Where a fault strikes: one phone's requests to its backend, every request to the backend,
/// the push service (the backend's sends to it, and its deliveries to phones), or the SMS
/// gateway (its senders' requests, and its deliveries to phones).
public enum FaultTarget: Hashable, Sendable, CustomStringConvertible {
    case phone(String)
    case backend
    case push
    case sms

    public var description: String {
        switch self {
        case .phone(let id): "phone \(id)"
        case .backend: "the backend"
        case .push: "the push service"
        case .sms: "the SMS gateway"
        }
    }
}

/// What a fault does.
public enum FaultKind: Hashable, Sendable {
    /// The connection is refused.
    case unreachable
    /// The phone has no network at all (airplane mode): every request fails at once, and the
    /// phone knows it, as a real one does (the OTP countdown is skipped then, docs/behaviour.md#offline-otp).
    case offline
    /// No answer comes: the request times out.
    case hang
    /// The server answers this status (with a `Retry-After` in seconds, if given).
    case status(code: Int, retryAfter: Int?)
    /// The answer comes late, by a random time within the bounds (milliseconds).
    case latency(minimum: Int, maximum: Int)
    /// The push service (or the SMS gateway) accepts a push (a text) and never delivers it.
    case drop
    /// The push service (or the SMS gateway) delivers a push (a text) this many seconds late.
    case delay(seconds: Int)

    /// Whether it acts on a request (rather than a delivery).
    public var isRequestFault: Bool {
        switch self {
        case .drop, .delay: false
        default: true
        }
    }
}

/// A fault in force. It clears itself when its uses run out or at `expiresAt`, whichever comes
/// first, so a forgotten fault cannot break the next test.
public struct Fault: Sendable, Equatable, Identifiable {
    public var id: String
    public var target: FaultTarget
    public var kind: FaultKind
    /// Requests (or pushes) it still affects; nil: every one until it expires.
    public var remaining: Int?
    public var createdAt: Date
    public var expiresAt: Date
}

public struct FaultError: Error, Equatable, Sendable {
    public let code: String
    public let message: String

    static func invalid(_ field: String, _ reason: String) -> FaultError {
        FaultError(code: "INVALID_FIELD", message: "the field '\(field)' \(reason)")
    }
}

/// The faults QA sets on purpose (the retries of docs/behaviour.md#device-information-and-fcm-token-changes made visible): the only stand-in for a
/// broken network, consulted where the parts talk to each other.
public final class FaultInjector: Sendable {
    public static let lifetimeLimit = 1...3600
    public static let countLimit = 1...1000

    private let faults = Mutex<[Fault]>([])
    private let now: @Sendable () -> Date
    private let random: @Sendable () -> Double
    /// Every change of the list (a fault added, used up, cleared), for the screens.
    public let changes = Broadcaster<[Fault]>()
    /// Each fault as it strikes a request or a push, for the server's metrics and logs.
    public let strikes = Broadcaster<Fault>()
    /// The faults that stopped striking (removed, cleared, used up or expired), for what waits
    /// out a back-off they caused: it may try again at once.
    public let lifted = Broadcaster<[Fault]>()

    public init(now: @escaping @Sendable () -> Date = Date.init, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.now = now
        self.random = random
    }

    /// Adds a fault, or says which field cannot be taken.
    public func add(target: FaultTarget, kind: FaultKind, count: Int?, lifetime: Int) throws(FaultError) -> Fault {
        guard Self.lifetimeLimit.contains(lifetime) else { throw .invalid("seconds", "must be between 1 and 3600") }
        if let count, !Self.countLimit.contains(count) { throw .invalid("count", "must be between 1 and 1000") }
        switch (kind, target) {
        case (.status(let code, let retryAfter), _):
            guard (400...599).contains(code) else { throw .invalid("status", "must be an HTTP error status, 400 to 599") }
            if let retryAfter, !(0...3600).contains(retryAfter) { throw .invalid("retryAfter", "must be between 0 and 3600 seconds") }
        case (.latency(let minimum, let maximum), _):
            guard (0...30_000).contains(minimum), (minimum...30_000).contains(maximum) else {
                throw .invalid("maximumMs", "needs 0 ≤ minimumMs ≤ maximumMs ≤ 30000 milliseconds")
            }
        case (.delay(let seconds), _) where !(1...600).contains(seconds):
            throw .invalid("delaySeconds", "must be between 1 and 600 seconds")
        case (.offline, .backend), (.offline, .push), (.offline, .sms):
            throw .invalid("kind", "'offline' takes a phone off the network: only the target 'phone' takes it")
        case (.unreachable, .sms), (.hang, .sms):
            throw .invalid(
                "kind",
                "cannot be 'unreachable' or 'hang' on the target 'sms', whose senders reach this server itself: it takes status, latency, dropText and delayText"
            )
        default: break
        }
        if !kind.isRequestFault, target != .push, target != .sms {
            throw .invalid("kind", "drops and delays deliveries: only the push service and the SMS gateway take it")
        }
        let time = now()
        let fault = Fault(
            id: UUID.random().uuidString.lowercased(), target: target, kind: kind, remaining: count, createdAt: time,
            expiresAt: time.addingTimeInterval(TimeInterval(lifetime)))
        publish { $0.append(fault) }
        return fault
    }

    /// The faults in force now.
    public var active: [Fault] {
        let time = now()
        return faults.withLock { $0.filter { $0.expiresAt > time } }
    }

    public func remove(id: String) -> Bool {
        guard active.contains(where: { $0.id == id }) else { return false }
        publish { $0.removeAll { $0.id == id } }
        return true
    }

    public func clear() { publish { $0.removeAll() } }

    /// The fault that strikes one request (or push) from these targets, if any, using it up
    /// once. The phone's own fault comes before the backend's.
    public func strike(_ targets: [FaultTarget], requests: Bool) -> FaultKind? {
        let time = now()
        var struck: Fault?
        let (before, changed) = faults.withLock { list -> ([Fault], [Fault]?) in
            let before = list
            list.removeAll { $0.expiresAt <= time }
            for target in targets {
                guard let index = list.firstIndex(where: { $0.target == target && $0.kind.isRequestFault == requests }) else { continue }
                struck = list[index]
                if let remaining = list[index].remaining {
                    if remaining <= 1 { list.remove(at: index) } else { list[index].remaining = remaining - 1 }
                }
                return (before, list)
            }
            return (before, list.count != before.count ? list : nil)
        }
        if let changed { announce(changed, after: before) }
        guard let struck else { return nil }
        strikes.send(struck)
        return struck.kind
    }

    /// Whether the phone is off the network now (a fault it knows of without trying).
    public func isOffline(phoneId: String) -> Bool {
        active.contains { $0.target == .phone(phoneId) && $0.kind == .offline }
    }

    /// A latency fault's wait, drawn within its bounds.
    public func latency(_ minimum: Int, _ maximum: Int) -> Duration {
        .milliseconds(minimum + Int((Double(maximum - minimum) * min(max(random(), 0), 0.999_999)).rounded(.down)))
    }

    private func publish(_ body: (inout [Fault]) -> Void) {
        let time = now()
        let (before, list) = faults.withLock { list -> ([Fault], [Fault]) in
            let before = list
            body(&list)
            list.removeAll { $0.expiresAt <= time }
            return (before, list)
        }
        announce(list, after: before)
    }

    private func announce(_ list: [Fault], after before: [Fault]) {
        changes.send(list)
        let gone = before.filter { fault in !list.contains { $0.id == fault.id } }
        if !gone.isEmpty { lifted.send(gone) }
    }
}
