import AuthFlow
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WebApp

/// `POST /api/phones/{id}/actions`: a script takes the screen's actions over plain HTTP.
@Suite(.timeLimit(.minutes(2))) struct PhoneActionsRouteTests {
    struct Taken: Decodable {
        let flow: Flow?
    }

    static let pin = "260418"

    /// An enrolment and a login, every step by the route, each answered with the flow it left
    /// waiting or ended; the PIN in the bodies reaches no log line.
    @Test func aScriptEnrolsAndLogsInWithoutAWebSocket() async throws {
        let logs = LogCapture()
        let app = try await buildApplication(testConfiguration(), logger: logs.logger())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let actions = "/api/phones/\(phone.id)/actions"
            func take(_ action: [String: Any]) async throws -> Flow? {
                let answer = try await client.send(.post, actions, json: action)
                try #require(answer.status == .ok, "\(String(decoding: answer.body, as: UTF8.self))")
                return try answer.decode(Taken.self).flow
            }
            let enrolment = try await client.startSession("enrol", user: "alice")
            #expect(try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrolment.qrText]).status == .accepted)
            #expect(try await take(["action": "confirmSession"])?.currentInteraction?.type == .setSecondFactor)
            #expect(try await take(["action": "inputSecondFactor", "pin": Self.pin])?.state == .done)

            let login = try await client.startSession("login", user: "alice")
            #expect(try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": login.qrText]).status == .accepted)
            let account = try #require(try await client.phoneDetail(phone.id).accounts.first?.id)
            #expect(try await take(["action": "confirmSession", "account": account])?.currentInteraction?.type == .verifySecondFactor)
            #expect(try await take(["action": "inputSecondFactor", "pin": Self.pin])?.state == .done)
            #expect(try await client.backendSession(login.id).status == .loggedin)
        }
        #expect(!logs.all.isEmpty)
        #expect(logs.all.allSatisfy { !$0.contains(Self.pin) })
    }

    /// Each refusal has its status and code, and the flow waits on as it was.
    @Test func refusalsChangeNothing() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let actions = "/api/phones/\(phone.id)/actions"
            let idle = try await client.send(.post, actions, json: ["action": "cancel"])
            #expect(idle.status == .conflict)
            #expect(idle.errorCode == "NO_ACTIVE_FLOW")
            let unknownPhone = try await client.send(.post, "/api/phones/no-such-phone/actions", json: ["action": "dance"])
            #expect(unknownPhone.status == .notFound)
            #expect(unknownPhone.errorCode == "PHONE_NOT_FOUND")

            let enrolment = try await client.startSession("enrol", user: "alice")
            let started = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrolment.qrText])
            let waiting = try started.decode(Taken.self).flow
            let refusals: [([String: Any], HTTPResponse.Status, String)] = [
                (["action": "dance"], .badRequest, "MALFORMED_JSON"),
                (["action": "confirmSession", "acount": "x"], .badRequest, "UNKNOWN_FIELD"),
                (["action": "inputSecondFactor"], .badRequest, "MISSING_FIELD"),
                (["action": "confirmTransaction"], .conflict, "UNEXPECTED_INPUT"),
            ]
            for (body, status, code) in refusals {
                let answer = try await client.send(.post, actions, json: body)
                #expect(answer.status == status, "\(body)")
                #expect(answer.errorCode == code, "\(body)")
            }
            #expect(try await client.send(.get, "/api/phones/\(phone.id)").status == .ok)
            let after = try await client.send(.post, actions, json: ["action": "confirmSession"])
            #expect(try after.decode(Taken.self).flow?.id == waiting?.id)
        }
    }
}
