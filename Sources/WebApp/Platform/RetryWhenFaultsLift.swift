import Faults
import Phone
import ServiceLifecycle

/// When a fault stops striking (removed, cleared, used up, expired), the sessions a phone waits
/// to fetch again try at once: a presenter who clears a fault sees the phone connect, not a
/// countdown of up to 30 s.
struct RetryWhenFaultsLift: Service {
    let faults: FaultInjector
    let phones: PhoneService

    func run() async throws {
        let lifts = faults.lifted.subscribe()
        for await _ in lifts.cancelOnGracefulShutdown() {
            await phones.sdk.retryWaitingSessionsNow()
        }
    }
}
