import Logging
import PushService
import ServiceLifecycle

/// Opens arriving pushes at once for the phones whose settings ask for it, as an app in the
/// foreground would; the others keep them in the inbox for the user. With several instances a
/// push is opened by its phone's home, which hears of every push another instance takes from the
/// database once it is committed: the instance that took it does not hand it over, so one killed
/// right after taking it loses nothing.
struct PushOpener: Service {
    let platform: PhonePlatform
    /// With several instances: where each phone's flow runs.
    let forwarding: PhoneForwarding?
    let logger: Logger

    /// Each arrival is opened in its own task: one phone's slow backend must not hold up the
    /// others (a phone opens one payload at a time; a second waits in its inbox).
    func run() async throws {
        let push = platform.push
        let arrivals = [push.allDeliveries, push.otherInstancesDeliveries].map { $0.subscribe() }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for deliveries in arrivals {
                    group.addTask {
                        await withDiscardingTaskGroup { each in
                            for await (token, message) in deliveries.cancelOnGracefulShutdown() {
                                each.addTask { await open(message, token: token) }
                            }
                        }
                    }
                }
            }
        } onGracefulShutdown: {
        }
    }

    /// Opens one message here when its phone's flow runs here; one refused is logged with why
    /// (`PhonePlatform.open` says whether it stays in the inbox).
    func open(_ message: PushService.InboxMessage, token: String) async {
        do {
            _ = try await platform.openAtOnce(message, token: token) { phoneId in
                guard let forwarding else { return false }
                return try await forwarding.elsewhere(phoneId, headers: [:]) != nil
            }
        } catch {
            logger.info("a push opened at once was refused", metadata: ["message": "\(message.id)", "reason": "\(error)"])
        }
    }
}
