import Backend
import Faults
import Hummingbird
import Phone
import PushService
import SMSGateway
import Scenarios
import Timeline

/// `POST /api/reset`: every phone, backend session and account, push registration and inbox,
/// text and SMS log entry, fault and timeline entry gone, so that a CI job starts each run from nothing without restarting the server.
/// The backend keeps its key, the push service its senders' service accounts, the SMS gateway its account. Behind the doors
/// like every state change: a foreign Origin is refused before anything is erased.
struct ResetController {
    let phones: PhoneService
    let backend: DemoBackend
    let push: PushService
    let sms: SMSGateway
    let faults: FaultInjector
    let timeline: Timeline
    /// Told that every flow and session under way is gone.
    let monitor: ServiceMonitor
    let recordings: Recordings

    /// Everything erased but the recordings: a walk being recorded goes on, its reset a step.
    private func reset() async throws {
        faults.clear()
        try await phones.reset()
        monitor.forgot(phoneId: nil, outcome: "RESET")
        try await backend.reset()
        try await push.reset()
        try await sms.clearLog()
        try await timeline.reset()
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/reset") { request, context -> Response in
            try await request.expectNoBody(context: context)
            try await recordings.noting({ try await reset() }) { _, _ in .reset }
            return Response(status: .noContent)
        }
    }
}
