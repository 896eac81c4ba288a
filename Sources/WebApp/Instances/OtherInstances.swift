import Backend
import Phone
import PushService
import ServiceLifecycle
import Timeline

/// What the other instances sharing the PostgreSQL change, brought to the pages connected here:
/// the pushes and texts they take for phones whose screens are open on this one (and for the
/// event streams), the sessions they change for the consoles watching this one, the exchanges they
/// record for the timelines watching it. Only a server on PostgreSQL runs it (a service that
/// ends would stop the server).
struct OtherInstances: Service {
    let push: PushService
    let phones: PhoneService
    let backend: DemoBackend
    let timeline: Timeline

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await push.relayOtherInstancesDeliveries() }
                group.addTask { await phones.messages.relayOtherInstancesTexts() }
                group.addTask { await backend.relayOtherInstancesSessions() }
                group.addTask { await timeline.relayOtherInstancesHops() }
            }
        }
    }
}
