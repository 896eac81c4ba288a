import BlockingWork
import NIOCore
import ServiceLifecycle

/// The server's lanes for work that holds a thread for long: reading uploaded pictures and
/// deriving PINs' keys, each on threads of its own (a thread a core) with its own bound, so a
/// burst of one never waits behind the other. Pictures run at a lower priority: a scan may wait
/// for the requests. PINs do not: under a load that keeps the cores busy (`make bench`'s logins) a
/// lowered PIN lane starved and logins timed out. Their threads stop with the server.
struct BlockingWorkLanes: Service {
    let pictures: WorkLane
    let pins: WorkLane

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
    }
}
