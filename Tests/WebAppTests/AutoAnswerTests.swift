import AuthFlow
import Backend
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import Testing
import Timeline
import WebApp

/// Auto-answer rules on a live server: a push login answered with nobody at the screen, marked
/// as automatic on its flow updates and its timeline; a PIN that is not the phone's refused
/// before the backend hears of it.
@Suite(.timeLimit(.minutes(2))) struct AutoAnswerTests {
    struct Hops: Decodable {
        let hops: [Hop]
    }

    @Test func aPushLoginIsAnsweredByARuleAndMarkedAutomatic() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            #expect(try await client.send(.put, "/api/phones/\(phoneId)/settings", json: ["openPushesAtOnce": true]).status == .ok)
            let added = try await client.send(
                .post, "/api/phones/\(phoneId)/auto-answer", json: ["user": "alice", "answer": "confirm", "pin": "260418", "count": 1])
            #expect(added.status == .created)
            #expect(!String(decoding: added.body, as: UTF8.self).contains("260418"))
            let rule = try added.decode(AutoAnswerRule.self)
            #expect(rule.secondFactor == .pin && rule.remaining == 1)

            let login = try await client.send(.post, "/api/backend/sessions", json: ["type": "login", "userId": "alice", "delivery": "push"])
                .decode(BackendSession.self)
            var updates: [Flow] = []
            while updates.last?.state.isFinal != true { updates.append(try await screen.nextFlow()) }
            #expect(updates.last?.state == .done)
            // the request itself is no answer; everything after the rule's answer says so
            #expect(updates.first?.automatic == nil && updates.first?.currentInteraction?.type == .confirm)
            #expect(updates.dropFirst().allSatisfy { $0.automatic?.rule == rule.id })
            #expect(try await client.backendSession(login.id).status == .loggedin)

            let hops = try await client.send(.get, "/api/backend/sessions/\(login.id)/timeline").decode(Hops.self).hops
            let marked = hops.filter { $0.automaticRule == rule.id }.map { URL(string: $0.url)?.lastPathComponent ?? "" }
            #expect(marked == ["confirm", "verify"])
            // and so does the HAR a test keeps of it
            let har = try await client.send(.get, "/api/backend/sessions/\(login.id)/timeline?format=har")
            let entries = try #require(
                ((try JSONSerialization.jsonObject(with: har.body) as? [String: Any])?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
            let automatic = entries.filter { ($0["_authphone"] as? [String: Any])?["automaticRule"] as? String == rule.id }
            #expect(automatic.count == 2)
            #expect(automatic.allSatisfy { ($0["comment"] as? String)?.hasSuffix("automatic (rule \(rule.id))") == true })
            // used up
            #expect(
                try await client.send(.get, "/api/phones/\(phoneId)/auto-answer").decode([String: [AutoAnswerRule]].self)["rules"]?.isEmpty == true)
        }
    }

    /// Refusals change nothing: no rule is added, and no PIN is tried at the backend.
    @Test func aBadRuleIsRefusedAndNothingChanges() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            let path = "/api/phones/\(phoneId)/auto-answer"
            let timeline = "/api/phones/\(phoneId)/timeline"
            let before = try await client.send(.get, timeline).decode(Hops.self).hops.count
            for (body, status, code) in [
                (["answer": "confirm", "pin": "135790"], HTTPResponse.Status.badRequest, "RULE_PIN_WRONG"),
                (["answer": "confirm", "pin": "12"], .badRequest, "INVALID_PIN_FORMAT"),
                (["answer": "confirm", "pn": "260418"], .badRequest, "UNKNOWN_FIELD"),
                (["answer": "confirm", "pin": "260418", "biometric": true], .badRequest, "INVALID_FIELD"),
                (["answer": "confirm", "server": "https://bank.example/login"], .badRequest, "INVALID_FIELD"),
                (["answer": "confirm", "count": 0], .badRequest, "INVALID_FIELD"),
                (["answer": "confirm", "account": "nobody"], .badRequest, "INVALID_FIELD"),
            ] as [([String: Any], HTTPResponse.Status, String)] {
                let answer = try await client.send(.post, path, json: body)
                #expect(answer.status == status && answer.errorCode == code, "\(body): \(answer.status) \(answer.errorCode ?? "")")
            }
            #expect(try await client.send(.post, "/api/phones/nobody/auto-answer", json: ["answer": "confirm"]).errorCode == "PHONE_NOT_FOUND")
            #expect(try await client.send(.delete, "\(path)/nothing").errorCode == "RULE_NOT_FOUND")
            #expect(try await client.send(.get, path).decode([String: [AutoAnswerRule]].self)["rules"]?.isEmpty == true)
            #expect(try await client.send(.get, timeline).decode(Hops.self).hops.count == before)
        }
    }

    /// On a phone without a PIN, a rule's PIN (allowed by the policy) sets it at enrolment; the
    /// same rule then proves it at a login.
    @Test func aRuleEnrolsAFreshPhoneThenLogsIn() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let path = "/api/phones/\(phone.id)/auto-answer"
            #expect(try await client.send(.post, path, json: ["answer": "confirm", "pin": "123456"]).errorCode == "PIN_TOO_COMMON")
            let rule = try await client.send(.post, path, json: ["answer": "confirm", "pin": "260418"]).decode(AutoAnswerRule.self)
            for type in ["enrol", "login"] {
                let session = try await client.startSession(type, user: "alice")
                let scanned = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": session.qrText])
                #expect(try scanned.decode([String: Flow].self)["flow"]?.state == .done, "\(type)")
                let hops = try await client.send(.get, "/api/backend/sessions/\(session.id)/timeline").decode(Hops.self).hops
                #expect(hops.contains { $0.automaticRule == rule.id }, "\(type)")
            }
            #expect(try await client.latestBackendSession().status == .loggedin)
        }
    }
}
