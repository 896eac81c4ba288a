import BlockingWork
import NIOCore
import ServiceLifecycle

/// The server's lanes for work that holds a thread for long: reading uploaded pictures,
/// deriving PINs' keys and making privacyIDEA tokens' RSA keys, each on threads of its own with
/// its own bound, so a burst of one never waits behind another. Pictures and keys run at a lower
/// priority: a scan or an enrolment may wait for the requests. PINs do not: under a load that
/// keeps the cores busy (`make bench`'s logins) a lowered PIN lane starved and logins timed out.
/// Their threads stop with the server.
struct BlockingWorkLanes: Service {
    let pictures: WorkLane
    let pins: WorkLane
    /// One thread: an enrolment is a person's step, and a few at once wait their turn.
    let keys = WorkLane(name: "keys", threads: 1, capacity: 8, retryAfter: .seconds(2), niceness: 10)

    init(_ configuration: AppConfiguration) {
        pictures =
            configuration.pictureLane
            ?? WorkLane(
                name: "pictures", threads: System.coreCount, capacity: configuration.pictureScanCapacity, retryAfter: .seconds(2),
                niceness: 10)
        pins = WorkLane(name: "pins", threads: System.coreCount, capacity: configuration.pinDerivationCapacity, retryAfter: .seconds(1))
    }

    func run() async throws {
        try? await gracefulShutdown()
        await pictures.shutdown()
        await pins.shutdown()
        await keys.shutdown()
    }
}
