import Logging
import PushService
import ServiceLifecycle

/// Opens arriving pushes at once for the phones whose settings ask for it, as an app in the
/// foreground would; the others keep them in the inbox for the user.
struct PushOpener: Service {
    let platform: PhonePlatform
    /// With several instances: a phone at home on another has its push opened there.
    let forwarding: PhoneForwarding?
    let logger: Logger

    /// Each arrival is opened in its own task: one phone's slow backend must not hold up the
    /// others (a phone opens one payload at a time; a second waits in its inbox).
    func run() async throws {
        let arrivals = platform.push.allDeliveries.subscribe()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await (token, message) in arrivals.cancelOnGracefulShutdown() {
                    group.addTask { await open(message, token: token) }
                }
            }
        } onGracefulShutdown: {
        }
    }

    /// Opens one message; one that cannot start (a flow is running, a bad payload) stays in the inbox.
    func open(_ message: PushService.InboxMessage, token: String) async {
        do {
            _ = try await platform.openAtOnce(message, token: token) { phoneId in
                guard let forwarding, let home = try await forwarding.elsewhere(phoneId, headers: [:]) else { return false }
                try await forwarding.send(.POST, "/api/phones/\(phoneId)/inbox/\(message.id)/open", to: home)
                return true
            }
        } catch {
            logger.info("a push stays in the inbox", metadata: ["message": "\(message.id)", "reason": "\(error)"])
        }
    }
}
