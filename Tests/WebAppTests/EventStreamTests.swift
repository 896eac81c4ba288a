import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WebApp

/// `GET /api/events` on a live server: its events as they happen, its keep-alive on the
/// test's own clock, and a client that goes away taking its subscription with it.
@Suite(.timeLimit(.minutes(2))) struct EventStreamTests {
    @Test func aClientThatGoesAwayLeavesNoSubscription() async throws {
        let ticks = AsyncStream<Void>.makeStream()
        var configuration = testConfiguration()
        configuration.eventKeepAlive = {
            for await _ in ticks.stream { return }
            throw CancellationError()
        }
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let (chunks, received) = AsyncStream<String>.makeStream()
            let reader = Task {
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/api/events?kind=session"), timeout: .seconds(60))
                #expect(response.headers["content-type"] == ["text/event-stream"])
                #expect(response.headers["x-accel-buffering"] == ["no"], "a proxy passes the events on as they come")
                for try await chunk in response.body { received.yield(String(buffer: chunk)) }
            }
            var text = chunks.makeAsyncIterator()
            #expect(await text.next() == ": open\n\n")
            #expect(try await Self.openStreams(client) == 1)
            let session = try await client.startSession("enrol", user: "alice")
            let event = try #require(await text.next())
            #expect(event.hasPrefix("id: ") && event.contains("\nevent: session\ndata: {\"session\":{") && event.contains(session.id))
            ticks.continuation.yield()
            #expect(await text.next() == ": keep-alive\n\n")

            reader.cancel()
            // the server hears the close at once (ClientDeparture), or at its next write at the latest
            var open = 1
            for _ in 0..<10 where open > 0 {
                ticks.continuation.yield()
                open = try await Self.openStreams(client)
            }
            #expect(open == 0)
        }
    }

    @Test func filtersThatNameNothingAreRefusedBeforeTheStream() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let refusals: [(String, HTTPResponse.Status, String)] = [
                ("phone=00000000-0000-4000-8000-000000000000", .notFound, "PHONE_NOT_FOUND"),
                ("session=00000000-0000-4000-8000-000000000000", .notFound, "SESSION_NOT_FOUND"),
                ("kind=interaction,nope", .badRequest, "UNKNOWN_EVENT_KIND"),
                ("lastEventId=-3", .badRequest, "INVALID_LAST_EVENT_ID"),
            ]
            for (query, status, code) in refusals {
                let answer = try await client.send(.get, "/api/events?" + query)
                #expect(answer.status == status, "\(query)")
                #expect(answer.errorCode == code, "\(query)")
            }
            #expect(try await Self.openStreams(client) == 0)
        }
    }

    /// Off loopback the stream is behind the access key as every route is (it tells of every
    /// phone and session).
    @Test func theStreamNeedsTheAccessKey() async throws {
        var configuration = testConfiguration()
        configuration.accessKey = "the-key-0123456789"
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let refused = try await client.send(.get, "/api/events")
            #expect(refused.status == .unauthorized)
            #expect(refused.errorCode == "ACCESS_KEY_REQUIRED")
            let admitted = try await client.send(.get, "/api/events?kind=nope", headers: [.authorization: "Bearer the-key-0123456789"])
            #expect(admitted.errorCode == "UNKNOWN_EVENT_KIND")
        }
    }

    /// The `authphone_event_streams_open` gauge of `/metrics` (absent until a stream opens).
    static func openStreams(_ client: some TestClientProtocol) async throws -> Int {
        let metrics = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
        guard let line = metrics.split(separator: "\n").first(where: { $0.hasPrefix("authphone_event_streams_open ") }) else { return 0 }
        return Int(try #require(Double(line.split(separator: " ")[1])))
    }
}
