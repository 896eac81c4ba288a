import AuthFlow
import Backend
import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import TestDoubles
import Testing
import WebApp

/// The wrong-PIN policy set over REST, and what the phone's screen is told during a penalty.
@Suite(.timeLimit(.minutes(2))) struct PinPenaltyTests {
    struct PolicyView: Decodable {
        let maxAttempts: Int
        let penalties: [Int]
        let preset: String?
        let presets: [String: SecondFactorPolicy]
    }

    @Test func theConsoleSetsAPolicyAndRefusalsChangeNothing() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let path = "/api/backend/second-factor-policy"
            var policy = try await client.send(.get, path).decode(PolicyView.self)
            #expect(policy.preset == "nextAuth" && policy.maxAttempts == 3 && policy.penalties.isEmpty)
            #expect(policy.presets["nevis"] == .nevis)

            policy = try await client.send(.put, path, json: ["maxAttempts": 4, "penalties": [0, 5, 10]]).decode(PolicyView.self)
            #expect(policy.preset == nil && policy.maxAttempts == 4 && policy.penalties == [0, 5, 10])

            let refused: [([String: Any], String)] = [
                ([:], "INVALID_FIELD"), (["preset": "nevis", "maxAttempts": 3], "INVALID_FIELD"),
                (["preset": "nevis", "penalties": []], "INVALID_FIELD"), (["preset": "strict"], "INVALID_FIELD"),
                (["maxAttempts": 0], "INVALID_FIELD"), (["maxAttempts": 3, "penalties": [1, 2, 3]], "INVALID_FIELD"),
                (["penalties": [60]], "INVALID_FIELD"), (["maxAttempts": "3"], "MALFORMED_JSON"),
            ]
            for (body, code) in refused {
                let answer = try await client.send(.put, path, json: body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.errorCode == code, "\(body)")
            }
            policy = try await client.send(.get, path).decode(PolicyView.self)
            #expect(policy.maxAttempts == 4 && policy.penalties == [0, 5, 10])

            policy = try await client.send(.put, path, json: ["preset": "nevis"]).decode(PolicyView.self)
            #expect(policy.preset == "nevis" && policy.maxAttempts == 5 && policy.penalties == [0, 0, 60, 180])
        }
    }

    /// After the 3rd wrong PIN under the Nevis policy the screen counts 60 s down; the right PIN
    /// given during it is refused unchecked (the counters stay), and accepted once it is over.
    @Test func duringAPenaltyTheScreenCountsDownAndTheRightPinWaits() async throws {
        let clock = TestClock()
        var configuration = testConfiguration()
        configuration.now = { clock.now() }
        try await withEnrolledPhone(configuration) { client, screen, phoneId in
            _ = try await client.send(.put, "/api/backend/second-factor-policy", json: ["preset": "nevis"])
            let session = try await client.startSession("login", user: "alice")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
            _ = try await screen.settledFlow()
            try await screen.send(["action": "confirmSession", "account": try await client.phoneDetail(phoneId).accounts[0].id])
            var flow = try await screen.settledFlow()
            #expect(flow.secondFactorAccount == SecondFactorAccount(isBlocked: false, failedAttempts: 0, maxAttempts: 5))

            for (failures, wait) in [(1, 0), (2, 0), (3, 60)] {
                try await screen.send(["action": "inputSecondFactor", "pin": "111000"])
                flow = try await screen.settledFlow()
                #expect(flow.previousInteractionResult?.type == .pinFail)
                #expect(flow.secondFactorAccount?.failedAttempts == failures)
                #expect(flow.secondFactorAccount?.penalisedFor == wait)
            }
            #expect(flow.secondFactorAccount?.penalisedUntil == clock.now().addingTimeInterval(60))

            clock.advance(25)
            try await screen.send(["action": "inputSecondFactor", "pin": "260418"])
            flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.type == .verifySecondFactor)
            #expect(flow.previousInteractionResult?.type == .pinFail)
            #expect(flow.secondFactorAccount?.failedAttempts == 3)
            #expect(flow.secondFactorAccount?.penalisedFor == 35)
            #expect(try await client.backendSession(session.id).status == .confirmed)

            clock.advance(35)
            try await screen.send(["action": "inputSecondFactor", "pin": "260418"])
            #expect(try await screen.settledFlow().state == .done)
            #expect(try await client.backendSession(session.id).status == .loggedin)
        }
    }
}
