import AuthFlow
import Logging
import OutOfBand
import Phone
import PushService
import ServiceLifecycle

/// Opens arriving pushes at once for the phones whose settings ask for it, as an app in the
/// foreground would; the others keep them in the inbox for the user.
struct PushOpener: Service {
    let phones: PhoneService
    let push: PushService
    let logger: Logger

    /// Each arrival is opened in its own task: one phone's slow backend must not hold up the
    /// others (a phone opens one payload at a time; a second waits in its inbox).
    func run() async throws {
        let arrivals = push.allDeliveries.subscribe()
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
            guard let phone = try await phones.phoneOpeningPushesAtOnce(fcmToken: token) else { return }
            _ = try await Self.start(message, token: token, push: push) {
                try await phones.startOutOfBand(phone, payload: message.message.payload())
            }
        } catch {
            logger.info("a push stays in the inbox", metadata: ["message": "\(message.id)", "reason": "\(error)"])
        }
    }

    /// Starts the message's payload on the phone (`starting`) and takes it out of the inbox once
    /// the phone has it: when its flow starts, or when the backend could not be reached and the
    /// phone keeps trying by itself (docs/behaviour.md#offline-otp). A refusal leaves it in the inbox.
    static func start(
        _ message: PushService.InboxMessage, token: String, push: PushService,
        _ starting: () async throws -> Flow
    ) async throws -> Flow {
        do {
            let flow = try await starting()
            _ = try await push.take(token: token, id: message.id)
            return flow
        } catch let error as PhoneError where error.isRetryable {
            _ = try? await push.take(token: token, id: message.id)
            throw error
        }
    }
}
