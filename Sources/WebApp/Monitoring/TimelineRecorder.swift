import BackendAPI
import Foundation
import PushService
import ServiceLifecycle
import Timeline
import WireJSON

/// Keeps the timeline written while the server runs, and puts the push service's deliveries on
/// it: the push service hands a message to the phone without any HTTP of ours to observe. The
/// delivery is read off the push service's broadcast here, so the push itself waits for nothing.
struct TimelineRecorder: Service {
    let timeline: Timeline
    let push: PushService

    func run() async throws {
        let deliveries = push.allDeliveries.subscribe()
        await withDiscardingTaskGroup { group in
            group.addTask { await cancelWhenGracefulShutdown { await timeline.run() } }
            group.addTask {
                for await (token, message) in deliveries.cancelOnGracefulShutdown() {
                    timeline.record(
                        WireExchange(
                            label: .init(from: .push, to: .phone, pushToken: token, messageId: message.id), method: "POST",
                            url: "fcm://device/messages", startedAt: Date(), duration: .zero,
                            requestBody: (try? WireJSON.data(message.message)) ?? Data(), status: 200,
                            responseBody: nil, error: nil))
                }
            }
        }
        // what queued up during the shutdown
        try? await timeline.writeQueued()
    }
}
