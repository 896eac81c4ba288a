import Backend
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import OutOfBand
import PushService
import Testing
import Timeline
import WebApp

/// The timeline of every exchange between the parts, per session and per phone, as JSON and
/// HAR: what it records, that it never holds a PIN or a key, its bounds, and its doors.
@Suite(.timeLimit(.minutes(2))) struct TimelineTests {
    struct Answer: Decodable {
        let hops: [Hop]
    }

    static let pin = "260418"

    /// Any run of 40 or more base64url characters: a key (43), a signature (86), a whole token.
    static func longSecrets(in text: String) -> [String] {
        text.matches(of: /[A-Za-z0-9_-]{40,}/).map { String($0.output) }
    }

    @Test func aPushLoginsTimelineHasEveryHopAndNoSecret() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let login = try await client.send(.post, "/api/backend/sessions", json: ["type": "login", "userId": "alice", "delivery": "push"])
                .decode(BackendSession.self)
            var message = try await screen.next()
            while message.type != "notification" { message = try await screen.next() }
            let notification = try #require(message.notification)
            _ = try await client.send(.post, "/api/phones/\(phoneId)/inbox/\(notification.id)/open", json: [:])
            _ = try await screen.settledFlow()
            try await screen.send(["action": "confirmSession"])
            _ = try await screen.settledFlow()
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            #expect(try await screen.settledFlow().state == .done)

            let path = "/api/backend/sessions/\(login.id)/timeline"
            let json = try await client.send(.get, path)
            #expect(json.status == .ok)
            let hops = try json.decode(Answer.self).hops
            let route = hops.map { "\($0.from)>\($0.to) \(URL(string: $0.url)?.lastPathComponent ?? "")" }
            #expect(
                route == [
                    "backend>push messages:send", "push>phone messages", "phone>backend redeem", "phone>backend confirm",
                    "phone>backend verify",
                ], "\(route)")
            #expect(hops.allSatisfy { $0.sessionId == login.id })
            #expect(hops.map(\.status) == [200, 200, 200, 200, 200])
            #expect(hops.filter { $0.from == "phone" }.allSatisfy { $0.phoneId == phoneId })
            #expect(hops[0].messageId == notification.id && hops[1].messageId == notification.id)
            #expect(zip(hops, hops.dropFirst()).allSatisfy { $0.at <= $1.at })
            // bodies are there, their secrets are not
            let verify = try #require(hops.last?.request)
            #expect(verify.contains("‹redacted›"))
            for answer in [json, try await client.send(.get, path + "?format=har"), try await client.send(.get, "/api/phones/\(phoneId)/timeline")] {
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(!text.contains(Self.pin))
                #expect(Self.longSecrets(in: text).isEmpty, "\(Self.longSecrets(in: text))")
            }
        }
    }

    @Test func theHARFileHasAnEntryPerHop() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            let answer = try await client.send(.get, "/api/phones/\(phoneId)/timeline?format=har")
            #expect(answer.status == .ok)
            let har = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            let log = try #require(har["log"] as? [String: Any])
            #expect(log["version"] as? String == "1.2")
            let entries = try #require(log["entries"] as? [[String: Any]])
            // the enrolment: redeem, confirm, enrol
            #expect(entries.count == 3)
            let request = try #require(entries.first?["request"] as? [String: Any])
            #expect(request["method"] as? String == "POST")
            #expect((request["url"] as? String)?.hasSuffix("/api/backend/redeem") == true)
            #expect((entries.first?["response"] as? [String: Any])?["status"] as? Int == 200)
        }
    }

    @Test func eachSessionKeepsOnlyItsNewestHops() async throws {
        var configuration = testConfiguration()
        configuration.timelinePerSession = 2
        try await withEnrolledPhone(configuration) { client, screen, phoneId in
            let login = try await client.startSession("login", user: "alice")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": login.qrText])
            _ = try await screen.settledFlow()
            try await screen.send(["action": "confirmSession"])
            _ = try await screen.settledFlow()
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
            #expect(try await screen.settledFlow().state == .done)
            let hops = try await client.send(.get, "/api/backend/sessions/\(login.id)/timeline").decode(Answer.self).hops
            #expect(hops.map { URL(string: $0.url)?.lastPathComponent } == ["confirm", "verify"])
        }
    }

    @Test func withoutATimelineNothingIsRecorded() async throws {
        var configuration = testConfiguration()
        configuration.recordTimeline = false
        try await withEnrolledPhone(configuration) { client, _, phoneId in
            let timeline = try await client.send(.get, "/api/phones/\(phoneId)/timeline").decode(Answer.self)
            #expect(timeline.hops.isEmpty)
        }
    }

    @Test func aFaultThatStopsARequestIsOnTheTimeline() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            let fault = try await client.send(.post, "/api/faults", json: ["target": "phone", "phoneId": phoneId, "kind": "unreachable", "count": 1])
            #expect(fault.status == .created)
            let login = try await client.startSession("login", user: "alice")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": login.qrText])
            let hops = try await client.send(.get, "/api/phones/\(phoneId)/timeline").decode(Answer.self).hops
            let struck = try #require(hops.first { $0.fault != nil })
            #expect(struck.status == nil)
            #expect(struck.fault?.contains("a fault set on purpose") == true)
            #expect(URL(string: struck.url)?.lastPathComponent == "redeem")
        }
    }

    /// A redeem the backend refuses is on the timeline of the token's session, with its refusal;
    /// a token the backend never issued belongs to no session.
    @Test func aRefusedRedeemIsOnItsSessionsTimeline() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let first = try await client.createPhone("First")
            let second = try await client.createPhone("Second")
            let enrolment = try await client.startSession("enrol", user: "dave")
            #expect(try await client.send(.post, "/api/phones/\(first.id)/oob", json: ["qr": enrolment.qrText]).status == .accepted)
            let used = try await client.send(.post, "/api/phones/\(second.id)/oob", json: ["qr": enrolment.qrText])
            #expect(used.errorCode == "ENROL_QR_EXPIRED")
            let issued = try OutOfBandDecoder.decode(qrText: enrolment.qrText)
            let forged = OutOfBandPayload(redeemData: .init(token: "never-issued", redeemURL: issued.redeemData.redeemURL))
            #expect(try await client.send(.post, "/api/phones/\(second.id)/oob", json: ["qr": forged.qrText]).errorCode == "TOKEN_UNKNOWN")

            let hops = try await client.send(.get, "/api/backend/sessions/\(enrolment.id)/timeline").decode(Answer.self).hops
            #expect(hops.map(\.phoneId) == [first.id, second.id])
            #expect(hops.map(\.status) == [200, 410])
            let secondPhones = try await client.send(.get, "/api/phones/\(second.id)/timeline").decode(Answer.self).hops
            #expect(secondPhones.map(\.status) == [410, 404])
            #expect(secondPhones.map(\.sessionId) == [enrolment.id, nil])
        }
    }

    @Test func whatIsNotThereIsRefused() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let noSession = try await client.send(.get, "/api/backend/sessions/nobody/timeline")
            #expect(noSession.status == .notFound)
            #expect(noSession.errorCode == "SESSION_NOT_FOUND")
            let noPhone = try await client.send(.get, "/api/phones/nobody/timeline")
            #expect(noPhone.status == .notFound)
            let login = try await client.startSession("enrol", user: "alice")
            let format = try await client.send(.get, "/api/backend/sessions/\(login.id)/timeline?format=xml")
            #expect(format.status == .badRequest)
            #expect(format.errorCode == "INVALID_FIELD")
        }
    }

    @Test func theTimelineIsBehindTheDoors() async throws {
        var configuration = testConfiguration()
        configuration.accessKey = "the-key-0123456789"
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let login = try await client.send(
                .post, "/api/backend/sessions", json: ["type": "enrol", "userId": "alice"],
                headers: [.contentType: "application/json", .authorization: "Bearer the-key-0123456789"]
            ).decode(BackendSession.self)
            let path = "/api/backend/sessions/\(login.id)/timeline"
            #expect(try await client.send(.get, path).status == .unauthorized)
            #expect(try await client.send(.get, path, headers: [.authorization: "Bearer the-key-0123456789"]).status == .ok)
        }
    }
}
