import Backend
import ServiceLifecycle

/// Sends the pushes the console's requests could not wait for (a throttled phone), each once its
/// wait is over, until the server shuts down.
struct DeferredPushSender: Service {
    let backend: DemoBackend

    func run() async throws {
        await cancelWhenGracefulShutdown { await backend.sendDeferredPushes() }
    }
}
