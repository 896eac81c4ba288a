import BackendAPI
import Foundation
import PushService
import ServiceLifecycle
import Timeline

/// Keeps the timeline written while the server runs, and puts the push service's deliveries on
/// it: the push service hands a message to the phone without any HTTP of ours to observe. The
/// delivery is read off the push service's broadcast here, so the push itself waits for nothing.
struct TimelineRecorder: Service {
    let timeline: Timeline
    let push: PushService

    func run() async throws {
        let deliveries = Self.deliveries(push)
        await withDiscardingTaskGroup { group in
            group.addTask { await cancelWhenGracefulShutdown { await timeline.run() } }
            group.addTask {
                for await (token, message) in deliveries.cancelOnGracefulShutdown() {
                    timeline.record(
                        WireExchange(
                            label: .init(from: .push, to: .phone, pushToken: token, messageId: message.id), method: "POST",
                            url: "fcm://device/messages", startedAt: Date(), duration: .zero,
                            requestBody: (try? WireJSON.encoder().encode(message.message)) ?? Data(), status: 200,
                            responseBody: nil, error: nil))
                }
            }
        }
        // what queued up during the shutdown
        try? await timeline.writeQueued()
    }

    /// Every delivery, none lost on the way: the timeline's own queue bounds the memory and counts
    /// what it drops (`Timeline.dropped`), where a bounded broadcast buffer dropped them uncounted.
    static func deliveries(_ push: PushService) -> AsyncStream<(token: String, message: PushService.InboxMessage)> {
        push.allDeliveries.subscribe(keepingEvery: true)
    }
}
