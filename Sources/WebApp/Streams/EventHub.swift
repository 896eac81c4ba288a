import AuthFlow
import Backend
import Broadcast
import Foundation
import Phone
import PushService
import ServiceLifecycle
import Synchronization

/// What an event says, as the parts published it.
enum EventPayload: Sendable {
    case flow(phone: String, Flow)
    case push(phone: String, PushService.InboxMessage)
    case session(BackendSession)
    case privacyIDEA(phone: String, PrivacyIDEARequest)
    case sms(phone: String, TextMessage)

    var topic: EventTopic {
        switch self {
        case .flow(let phone, let flow):
            let kind: EventKind =
                switch flow.state {
                case .waitForInput: .interaction
                case .done, .error: .flowEnded
                case .processing: .flowUpdate
                }
            return EventTopic(kind: kind, phone: phone, session: flow.session?.id)
        case .push(let phone, _): return EventTopic(kind: .push, phone: phone)
        case .session(let session): return EventTopic(kind: .session, session: session.id)
        case .privacyIDEA(let phone, _): return EventTopic(kind: .privacyIDEA, phone: phone)
        case .sms(let phone, _): return EventTopic(kind: .sms, phone: phone)
        }
    }

    /// The `data:` line's JSON; absent fields are left out.
    private struct Body: Encodable {
        var phone: String?
        var flow: Flow?
        var message: String?
        var title: String?
        var session: BackendSession?
        var privacyIDEA: PrivacyIDEARequest?
        var sms: TextMessage?
    }

    var json: String {
        let data =
            switch self {
            case .flow(let phone, let flow): Body(phone: phone, flow: flow)
            case .push(let phone, let message): Body(phone: phone, message: message.id, title: message.message.notification?.title)
            case .session(let session): Body(session: session)
            case .privacyIDEA(let phone, let request): Body(phone: phone, privacyIDEA: request)
            case .sms(let phone, let message): Body(phone: phone, sms: message)
            }
        return StreamController.json(data)
    }
}

/// The server's one event journal and the streams open on it: each event is numbered and kept
/// as it is published, and handed at once to every stream whose filter admits it, in the
/// journal's order. A stream opens with what it missed and its live events in one step, so no
/// event falls between the two or comes twice.
final class EventHub: Sendable {
    typealias Entry = EventJournal<EventPayload>.Entry
    private let journal: Mutex<EventJournal<EventPayload>>
    private let live = Broadcaster<Entry>()
    let maxStreams: Int

    init(history: Int, maxStreams: Int) {
        journal = Mutex(EventJournal(capacity: history))
        self.maxStreams = maxStreams
    }

    func publish(_ payload: EventPayload) {
        // sent under the journal's lock, so every stream gets the events in their ids' order
        journal.withLock { live.send($0.append(payload.topic, payload)) }
    }

    /// The events after `request.after` that are still kept, and from now on each new one its
    /// filter admits handed to `deliver`, until the subscription is cancelled. Refused past
    /// `maxStreams` open streams: each holds a connection and a buffer.
    func open(
        _ request: EventRequest, deliver: @escaping @Sendable (Entry) -> Void
    ) throws(APIError) -> (EventJournal<EventPayload>.Replay, Subscription) {
        try journal.withLock { journal throws(APIError) in
            guard live.subscriberCount < maxStreams else {
                throw APIError(.tooManyRequests, "TOO_MANY_STREAMS", "\(maxStreams) event streams are open already; close one first")
            }
            let replay = request.after.map { journal.replay(after: $0, request.filter) } ?? .init()
            let filter = request.filter
            return (replay, live.forward { if filter.admits($0.topic) { deliver($0) } })
        }
    }

    var openStreams: Int { live.subscriberCount }

    /// One event as the stream writes it.
    static func text(_ entry: Entry) -> String {
        "id: \(entry.id)\nevent: \(entry.topic.kind.rawValue)\ndata: \(entry.payload.json)\n\n"
    }

    /// The event a resuming stream gets first when some of what it missed is gone: no id, so
    /// that the client's last id stays the last event it really got.
    static func gapText(oldest: UInt64) -> String {
        "event: gap\ndata: {\"oldest\":\(oldest)}\n\n"
    }
}

/// Feeds the journal from where the parts already publish: the phones' flow updates and
/// privacyIDEA requests, the backend's session changes and the push service's deliveries
/// (with several instances: the sessions and pushes of all, the flows of the phones at home
/// here, which is why a stream about phones is served by their home). It
/// follows them from the first stream opened on, so that a server no script listens to (a load
/// test) pays nothing: the backend builds a session's view only for those who listen, and a
/// delivery names a push registration, whose phone takes a read to find (one at a time, so that
/// pushes keep their order).
final class EventFeed: Service {
    let hub: EventHub
    let phones: PhoneService
    let backend: DemoBackend
    private let push: PushService
    /// Empty until the first stream opens.
    private let sources = Mutex<[Subscription]>([])

    init(hub: EventHub, phones: PhoneService, backend: DemoBackend, push: PushService) {
        self.hub = hub
        self.phones = phones
        self.backend = backend
        self.push = push
    }

    /// Opens a stream on the hub (`EventHub.open`), following the parts from now on.
    func open(
        _ request: EventRequest, deliver: @escaping @Sendable (EventHub.Entry) -> Void
    ) throws(APIError) -> (EventJournal<EventPayload>.Replay, Subscription) {
        sources.withLock { [hub, phones, backend] sources in
            guard sources.isEmpty else { return }
            sources.append(
                phones.events.forwardEvery { phone, event in
                    switch event {
                    case .flowUpdate(let flow): hub.publish(.flow(phone: phone, flow))
                    case .privacyIDEA(let request): hub.publish(.privacyIDEA(phone: phone, request))
                    case .textMessage(let message): hub.publish(.sms(phone: phone, message))
                    case .phoneChanged, .operation, .session, .otpAccount, .pushTokens, .containers: break
                    }
                })
            sources.append(backend.events.forward { hub.publish(.session($0)) })
        }
        return try hub.open(request, deliver: deliver)
    }

    private var following: Bool { sources.withLock { !$0.isEmpty } }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            for deliveries in [push.allDeliveries, push.otherInstancesDeliveries] {
                let arrivals = deliveries.subscribe()
                group.addTask { [self] in
                    for await (token, message) in arrivals.cancelOnGracefulShutdown() where following {
                        if let phone = try? await phones.phoneId(fcmToken: token) { hub.publish(.push(phone: phone, message)) }
                    }
                }
            }
        }
    }
}
