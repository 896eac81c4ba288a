import Synchronization

/// This server's own base URL. With port 0 (tests) it is only known once the server listens,
/// so it is read when needed rather than fixed at start-up.
final class ServerURL: Sendable {
    private let value: Mutex<String>

    init(_ initial: String) {
        value = Mutex(initial)
    }

    func get() -> String { value.withLock { $0 } }

    func set(_ url: String) { value.withLock { $0 = url } }
}
