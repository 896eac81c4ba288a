import Foundation
import Hummingbird
import HummingbirdTesting
import PushService
import Testing
import WebApp

/// `/api/push/messages` over real HTTP: what senders posted to the FCM endpoint, filtered by
/// phone and outcome; cleared only from this server's own pages.
@Suite(.timeLimit(.minutes(2))) struct PushLogRouteTests {
    struct Log: Decodable {
        let messages: [PushLogEntry]
        let limit: Int
    }

    @Test func theLogListsEverySendFiltersAndClears() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let other = try await client.createPhone("Other")
            for token in [phone.fcmToken, other.fcmToken] {
                let sent = try await client.send(
                    .post, "/v1/projects/authphone/messages:send", json: ["message": ["token": token, "data": ["k": "v"]]])
                #expect(sent.status == .ok)
            }
            let refused = try await client.send(
                .post, "/v1/projects/authphone/messages:send", json: ["message": ["token": phone.fcmToken, "topic": "news"]])
            #expect(refused.status == .badRequest)
            #expect(String(decoding: refused.body, as: UTF8.self).contains(FCMRule.oneTarget.description))

            let all = try await client.send(.get, "/api/push/messages").decode(Log.self)
            #expect(all.messages.map(\.outcome) == [.invalidArgument, .inbox, .inbox])
            #expect(all.messages.allSatisfy { $0.sender == "127.0.0.1" })
            #expect(all.limit == 1000)
            let mine = try await client.send(.get, "/api/push/messages?phone=\(phone.id)").decode(Log.self)
            #expect(mine.messages.map(\.outcome) == [.invalidArgument, .inbox])
            let refusals = try await client.send(.get, "/api/push/messages?phone=\(phone.id)&outcome=INVALID_ARGUMENT").decode(Log.self)
            #expect(refusals.messages.map(\.rule) == [.oneTarget])
            #expect(try await client.send(.get, "/api/push/messages?target=\(other.fcmToken)").decode(Log.self).messages.count == 1)

            for (query, code) in [
                ("outcome=lost", "UNKNOWN_OUTCOME"), ("limit=0", "INVALID_LIMIT"), ("limit=1001", "INVALID_LIMIT"),
                ("colour=red", "UNKNOWN_PARAMETER"), ("phone=\(phone.id)&target=x", "INVALID_FILTER"),
            ] {
                #expect(try await client.send(.get, "/api/push/messages?\(query)").errorCode == code, "\(query)")
            }
            #expect(try await client.send(.get, "/api/push/messages?phone=00000000-0000-4000-8000-000000000000").status == .notFound)

            // Another site's page cannot wipe the log.
            let foreign = try await client.send(.delete, "/api/push/messages", headers: [.origin: "http://evil.example"])
            #expect(foreign.errorCode == "FORBIDDEN_ORIGIN")
            #expect(try await client.send(.get, "/api/push/messages").decode(Log.self).messages.count == 3)
            #expect(try await client.send(.delete, "/api/push/messages", headers: [:]).status == .noContent)
            #expect(try await client.send(.get, "/api/push/messages").decode(Log.self).messages.isEmpty)
        }
    }
}

/// The composer's templates and last message outlive a reload: kept on the server, per console,
/// in the shape the page sends, and only from this server's own pages.
@Suite(.timeLimit(.minutes(2))) struct ComposerStateTests {
    @Test func aConsoleKeepsItsStateAndNoOneElseChangesIt() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let empty = try await client.send(.get, "/api/push/composer/console")
            #expect(try JSONSerialization.jsonObject(with: empty.body) as? NSDictionary == ["templates": [:], "last": NSNull()])
            let state: [String: Any] = ["templates": ["greeting": ["message": ["data": ["k": 1]]]], "last": ["tokens": ["t"]]]
            #expect(try await client.send(.put, "/api/push/composer/console", json: state).status == .ok)
            let kept = try await client.send(.get, "/api/push/composer/console")
            #expect(try JSONSerialization.jsonObject(with: kept.body) as? NSDictionary == state as NSDictionary)
            // another console's state is its own
            #expect(
                try JSONSerialization.jsonObject(with: try await client.send(.get, "/api/push/composer/stage").body) as? NSDictionary == [
                    "templates": [:], "last": NSNull(),
                ])

            for (bad, code) in [
                (["templates": [], "last": NSNull()], "INVALID_FIELD"), (["templates": [:]], "INVALID_FIELD"),
                (["templates": [:], "last": NSNull(), "extra": 1], "UNKNOWN_FIELD"),
            ] as [([String: Any], String)] {
                #expect(try await client.send(.put, "/api/push/composer/console", json: bad).errorCode == code)
            }
            #expect(try await client.send(.put, "/api/push/composer/con%20sole", json: state).errorCode == "INVALID_CONSOLE")
            let foreign = try await client.send(
                .put, "/api/push/composer/console", json: ["templates": [:], "last": NSNull()],
                headers: [.contentType: "application/json", .origin: "http://evil.example"])
            #expect(foreign.errorCode == "FORBIDDEN_ORIGIN")
            let after = try await client.send(.get, "/api/push/composer/console")
            #expect(try JSONSerialization.jsonObject(with: after.body) as? NSDictionary == state as NSDictionary)
        }
    }
}
