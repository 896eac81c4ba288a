import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Testing
import WebApp

/// `POST /api/phones/{id}/pin-check`: a new PIN checked against the server's policy at its first
/// entry, so the screen refuses it before asking for it again; nothing is sent, counted or changed.
struct PinCheckTests {
    @Test func aNewPinIsCheckedAgainstThePolicyWhileTheFlowSetsOne() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let check = "/api/phones/\(phoneId)/pin-check"
            #expect(try await client.send(.post, "/api/phones/no-such-phone/pin-check", json: ["pin": "739184"]).errorCode == "PHONE_NOT_FOUND")
            // no flow, then a flow that verifies a PIN rather than setting one
            #expect(try await client.send(.post, check, json: ["pin": "739184"]).errorCode == "NO_ACTIVE_FLOW")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/flows", json: ["type": "CHANGE_PIN"])
            #expect(try await screen.settledFlow().currentInteraction?.type == .verifySecondFactor)
            #expect(try await client.send(.post, check, json: ["pin": "739184"]).errorCode == "UNEXPECTED_INPUT")
            try await screen.send(["action": "inputSecondFactor", "pin": "260418"])
            #expect(try await screen.settledFlow().currentInteraction?.type == .setSecondFactor)

            let refusals: [(String, String)] = [
                ("123456", "PIN_TOO_COMMON"), ("112233", "PIN_TOO_COMMON"), ("12345", "INVALID_PIN_FORMAT"), ("12a456", "INVALID_PIN_FORMAT"),
            ]
            for (pin, code) in refusals {
                let answer = try await client.send(.post, check, json: ["pin": pin])
                #expect(answer.status == .badRequest)
                #expect(answer.errorCode == code, "\(pin)")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains(pin), "the refusal repeats the PIN")
            }
            #expect(try await client.send(.post, check, json: ["pin": "739184"]).status == .noContent)
            #expect(try await client.send(.post, check, json: ["pin": "739184", "extra": 1]).errorCode == "UNKNOWN_FIELD")
            // a check is not an input: the flow still waits for the new PIN, which then sets it
            let flow = try await client.phoneDetail(phoneId).flow
            #expect(flow?.currentInteraction?.type == .setSecondFactor)
            #expect(flow?.previousInteractionResult?.type == .success)
            try await screen.send(["action": "inputSecondFactor", "pin": "739184"])
            #expect(try await screen.settledFlow().state == .done)
        }
    }
}
