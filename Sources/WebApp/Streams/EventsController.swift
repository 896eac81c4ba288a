import Backend
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Phone
import ServiceLifecycle

/// `GET /api/events`: the server's events as Server-Sent Events, for a script that waits on
/// them instead of polling (docs/protocol.md#events). What a filter names must exist, so that a
/// misspelt id is an error rather than a stream that stays silent.
struct EventsController {
    let feed: EventFeed
    let monitor: ServiceMonitor
    /// With several instances: a stream about phones is served by their home, where their flows run.
    let forwarding: PhoneForwarding?
    /// Waits out the time between two `: keep-alive` comments (15 s; a test passes its own).
    let keepAlive: @Sendable () async throws -> Void

    /// What a stream may fall behind by. Past it the stream ends rather than skip an event: its
    /// client comes back with the last id it got and is sent the rest from the journal.
    static let buffer = 256

    private enum Outgoing: Sendable {
        case event(EventHub.Entry)
        case keepAlive
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: stream)
        return routes
    }

    func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        let items = URLComponents(string: "?" + (request.uri.query ?? ""))?.queryItems ?? []
        let wanted = try EventRequest.parse(query: items, lastEventID: request.headers[.lastEventID])
        for id in wanted.filter.phones { _ = try await feed.phones.phone(id: id) }
        for id in wanted.filter.sessions { _ = try await feed.backend.session(id: id) }
        if let forwarding, let home = try await forwarding.elsewhere(wanted.filter.phones, headers: request.headers) {
            return try await forwarding.forward(request, to: home, streamingTo: context.channel)
        }
        let (outgoing, continuation) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .bufferingOldest(Self.buffer))
        let (replay, subscription) = try feed.open(wanted) { entry in
            if case .dropped = continuation.yield(.event(entry)) { continuation.finish() }
        }
        monitor.eventStreams(open: feed.hub.openStreams)
        ClientDeparture.watch(context.channel) { continuation.finish() }
        // another instance took a phone this stream follows (this one missed its lease): the
        // stream ends, and its client, back with the last id it got, is joined to the new home
        let departures =
            (forwarding.map { forwarding in
                wanted.filter.phones.map { forwarding.homes.departures.forward($0) { _ in continuation.finish() } }
            }) ?? []
        continuation.onTermination = { [monitor, hub = feed.hub] _ in
            subscription.cancel()
            for departure in departures { departure.cancel() }
            monitor.eventStreams(open: hub.openStreams)
        }
        let keepAlive = keepAlive
        return Response(
            // a proxy in front (nginx, ingress-nginx) would hold the events back in its buffer
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .proxyBuffering: "no"],
            body: ResponseBody { writer in
                defer { continuation.finish() }
                // a comment at once, so the client knows the stream is open before any event
                let missed = replay.entries.map(EventHub.text).joined()
                try await writer.write(ByteBuffer(string: ": open\n\n" + (replay.gap.map(EventHub.gapText) ?? "") + missed))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        while true {
                            try await keepAlive()
                            continuation.yield(.keepAlive)
                        }
                    }
                    for await item in outgoing.cancelOnGracefulShutdown() {
                        switch item {
                        case .event(let entry): try await writer.write(ByteBuffer(string: EventHub.text(entry)))
                        case .keepAlive: try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        }
                    }
                    group.cancelAll()
                }
                try await writer.finish(nil)
            })
    }
}

extension HTTPField.Name {
    /// What an EventSource sends when it reconnects: the id of the last event it got.
    static let lastEventID = Self("Last-Event-ID")!
    /// nginx's (and ingress-nginx's) per-response switch of its buffering.
    static let proxyBuffering = Self("X-Accel-Buffering")!
}
