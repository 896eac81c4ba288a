import Broadcast
import Foundation
import Logging
import Phone
import ServiceLifecycle
import Synchronization

/// This instance's part in sharing the phones with the other instances on one PostgreSQL. A
/// phone's flow lives in the memory of one instance, its home: the first that serves the phone
/// takes it, the others hand the phone's requests and its screen there (`PhoneForwarding`),
/// and when the home stops saying it is alive the next instance that serves the phone takes it
/// over. An instance that missed its lease (paused, or cut off from the database) may have lost
/// its phones so: alive again, it keeps only those the database still gives it, and forgets the
/// flows of the others, so that one instance only runs each phone's flow. On SQLite there is one
/// instance, and every phone is at home here.
final class PhoneHomes: Sendable {
    /// This instance's name among the others: new at every start, as its memory is.
    let instance = UUID().uuidString
    /// Where the others reach this instance (`serve --instance-url`, or its listen address).
    let url: @Sendable () -> String
    /// Tells of each phone whose flow another instance runs now: its screens here end, for their
    /// pages to join the home's.
    let departures = KeyedBroadcaster<String, Void>()
    private let store: PhoneStore
    private let now: @Sendable () -> Date
    /// Drops what this instance remembers of phones it is no longer home to (their flows).
    private let forget: @Sendable (Set<String>) async -> Void
    private let known = Mutex(Known())

    /// How often the instance says it is alive, and how long one saying lasts: a killed
    /// instance's phones move after `lifetime` at most.
    static let beat = Duration.seconds(2)
    static let lifetime: TimeInterval = 10
    /// An instance dead this long is forgotten, with the homes it held.
    static let forgetAfter: TimeInterval = 60

    private struct Known {
        /// Until when the others see this instance alive, by its last beat that was stored, less
        /// a beat: before then no other can have taken its phones.
        var surelyAliveUntil = Date.distantPast
        var homedHere: Set<String> = []
    }

    init(
        store: PhoneStore, url: @escaping @Sendable () -> String, now: @escaping @Sendable () -> Date,
        forget: @escaping @Sendable (Set<String>) async -> Void
    ) {
        self.store = store
        self.url = url
        self.now = now
        self.forget = forget
    }

    /// The phone's home, taken by this instance when it has none or its home died. A phone known
    /// to be at home here asks the database nothing while this instance's last beat holds.
    func home(of phoneId: String) async throws(PhoneError) -> PhoneHome {
        let time = now()
        if known.withLock({ $0.homedHere.contains(phoneId) && time < $0.surelyAliveUntil }) { return .here }
        let home = try await store.home(of: phoneId, claimingFor: instance, now: time)
        let departed = known.withLock { known in
            guard home == .here else { return known.homedHere.remove(phoneId) != nil }
            known.homedHere.insert(phoneId)
            return false
        }
        if departed { await depart([phoneId]) }
        return home
    }

    /// Says this instance is alive for `lifetime` more. When its last beat no longer held (the
    /// others may have seen it dead and taken its phones), it keeps only the phones the database
    /// still gives it; answers the phones it lost.
    @discardableResult
    func beatOnce() async throws(PhoneError) -> Set<String> {
        let time = now()
        let (lapsed, held) = known.withLock { ($0.surelyAliveUntil <= time, $0.homedHere) }
        let stillHere = try await store.beat(
            instance: instance, url: url(), aliveUntil: time + Self.lifetime, forgettingDeadBefore: time - Self.forgetAfter,
            listingHomes: lapsed)
        // one step: no phone lost is served here on the strength of the new lease
        let lost = known.withLock { known in
            let lost = stillHere.map { held.subtracting($0).intersection(known.homedHere) } ?? []
            known.homedHere.subtract(lost)
            known.surelyAliveUntil = time + Self.lifetime - Self.beat.seconds
            return lost
        }
        await depart(lost)
        return lost
    }

    /// The phones' flows run on other instances now: this one forgets them and ends their screens.
    private func depart(_ phoneIds: Set<String>) async {
        guard !phoneIds.isEmpty else { return }
        await forget(phoneIds)
        for phoneId in phoneIds { departures.send((), to: phoneId) }
    }

    /// This instance stops: its phones go to the next instance that serves them, at once.
    func leave() async throws(PhoneError) {
        known.withLock { $0 = Known() }
        try await store.leave(instance: instance)
    }
}

/// Keeps this instance alive in the others' eyes while it runs, and leaves when it stops.
struct PhoneHomesBeat: Service {
    let homes: PhoneHomes
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let lost = try await homes.beatOnce()
                    if !lost.isEmpty {
                        logger.warning(
                            "this instance missed its lease and other instances took some of its phones: it forgets their flows",
                            metadata: ["phones": "\(lost.count)"])
                    }
                } catch {
                    logger.warning(
                        "this instance could not say it is alive; its phones move to others if it stays so", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: PhoneHomes.beat)
            }
        }
        do { try await homes.leave() } catch {
            logger.notice("this instance stopped without handing its phones over: the others take them when it is seen dead")
        }
    }
}

extension Duration {
    fileprivate var seconds: TimeInterval { TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18 }
}
