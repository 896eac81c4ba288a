import BlockingWork
import NIOCore
import ServiceLifecycle

/// The server's lanes for work that holds a thread for long: reading uploaded pictures and
/// deriving PINs' keys, each on threads of its own (a thread a core) with its own bound, so a
/// burst of one never waits behind the other. Their threads stop with the server.
struct BlockingWorkLanes: Service {
    let pictures: WorkLane
    let pins: WorkLane

    init(_ configuration: AppConfiguration) {
        pictures =
            configuration.pictureLane
            ?? WorkLane(name: "pictures", threads: System.coreCount, capacity: configuration.pictureScanCapacity, retryAfter: .seconds(2))
        pins = WorkLane(name: "pins", threads: System.coreCount, capacity: configuration.pinDerivationCapacity, retryAfter: .seconds(1))
    }

    func run() async throws {
        try? await gracefulShutdown()
        await pictures.shutdown()
        await pins.shutdown()
    }
}
