import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import TestDoubles
import Testing
import WebApp

/// State a CI job controls: a phone deleted, and everything reset, behind the doors.
@Suite(.timeLimit(.minutes(2))) struct StateTests {
    struct Phones: Decodable {
        let phones: [PhoneSummary]
    }
    struct Sessions: Decodable {
        struct Session: Decodable {
            let id: String
        }
        let sessions: [Session]
    }
    struct Faults: Decodable {
        struct Fault: Decodable {
            let id: String
        }
        let faults: [Fault]
    }

    static let json: HTTPFields = [.contentType: "application/json"]
    static let foreign: HTTPFields = [.contentType: "application/json", .origin: "http://attacker.example"]

    @Test func aDeletedPhoneIsGoneAndItsTokenUnregistered() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            let token = try await client.phoneDetail(phoneId).fcmToken
            let refused = try await client.send(.delete, "/api/phones/\(phoneId)", headers: Self.foreign)
            #expect(refused.errorCode == "FORBIDDEN_ORIGIN")
            #expect(try await client.send(.get, "/api/phones/\(phoneId)").status == .ok)

            #expect(try await client.send(.delete, "/api/phones/\(phoneId)", headers: [:]).status == .noContent)
            #expect(try await client.send(.get, "/api/phones/\(phoneId)").errorCode == "PHONE_NOT_FOUND")
            #expect(try await client.send(.get, "/api/phones").decode(Phones.self).phones.isEmpty)
            let push = try await client.send(
                .post, "/v1/projects/authphone/messages:send", json: ["message": ["token": token, "data": ["k": "v"]]])
            #expect(push.status == .notFound)
            #expect(try await client.send(.delete, "/api/phones/\(phoneId)", headers: [:]).errorCode == "PHONE_NOT_FOUND")
        }
    }

    @Test func resetLeavesNothingAndTheServerWorksOn() async throws {
        try await withEnrolledPhone { client, _, _ in
            _ = try await client.send(.post, "/api/faults", json: ["target": "backend", "kind": "hang"])
            // a foreign page cannot reset: refused before anything is erased
            let refused = try await client.send(.post, "/api/reset", headers: Self.foreign)
            #expect(refused.errorCode == "FORBIDDEN_ORIGIN")
            #expect(try await client.send(.get, "/api/phones").decode(Phones.self).phones.count == 1)
            #expect(try await client.send(.get, "/api/faults").decode(Faults.self).faults.count == 1)
            // a body is refused too
            #expect(try await client.send(.post, "/api/reset", json: ["all": true]).status == .badRequest)

            #expect(try await client.send(.post, "/api/reset", headers: Self.json).status == .noContent)
            #expect(try await client.send(.get, "/api/phones").decode(Phones.self).phones.isEmpty)
            #expect(try await client.send(.get, "/api/backend/sessions").decode(Sessions.self).sessions.isEmpty)
            #expect(try await client.send(.get, "/api/faults").decode(Faults.self).faults.isEmpty)

            // the same user enrols again on a new phone
            let phone = try await client.createPhone("After the reset")
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                try await enrol(client, &screen, phoneId: phone.id, user: "alice")
            }
        }
    }
}
