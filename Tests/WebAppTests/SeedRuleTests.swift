import AuthFlow
import Backend
import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import Testing
import WebApp

/// The seeds' rules for second factors given together with something else, on a live server
/// with a scripted screen: PIN and biometrics set in one input at enrolment (seeds 000, 002),
/// and the user's free text given with a second factor (seed 002).
@Suite(.timeLimit(.minutes(2))) struct SeedRuleTests {
    static let pin = SecondFactorFlowTests.pin

    /// An enrolment up to its SET_SECOND_FACTOR on a new phone.
    static func enrolUntilSet(_ client: some TestClientProtocol, _ screen: inout Screen, phoneId: String, user: String) async throws -> (Flow, String)
    {
        let session = try await client.startSession("enrol", user: user)
        _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
        _ = try await screen.settledFlow()
        try await screen.send(["action": "confirmSession"])
        return (try await screen.settledFlow(), session.id)
    }

    @Test func anEnrolmentSetsThePinAndTheBiometricInOneInput() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                var (flow, sessionId) = try await Self.enrolUntilSet(client, &screen, phoneId: phone.id, user: "alice")
                #expect(flow.currentInteraction?.type == .setSecondFactor)
                #expect(flow.currentInteraction?.secondFactorInfo == .pinWithBiometrics)
                // the PIN is required: the biometric alone is refused and changes nothing
                try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
                #expect(try await screen.next().error?.code == "FACTOR_REQUIRED")
                try await screen.send(["action": "inputSecondFactor", "pin": Self.pin, "biometrics": "match"])
                flow = try await screen.settledFlow()
                #expect(flow.state == .done)
                #expect(flow.previousInteractionResult?.inputTypes == [.pin, .biometrics])
                #expect(try await client.backendSession(sessionId).status == .enrolled)
                #expect(try await client.phoneDetail(phone.id).biometrics.hasEnabledBiometrics)

                // the Second Factor Server has the biometric key: a login passes with it alone
                (flow, _) = try await SecondFactorFlowTests.loginUntilVerify(client, &screen, phoneId: phone.id)
                #expect(flow.currentInteraction?.secondFactorInfo == .pinOrBiometrics)
                try await screen.send(["action": "inputSecondFactor", "biometrics": "match"])
                #expect(try await screen.settledFlow().state == .done)

                // both at once is only for setting them at an enrolment
                (flow, _) = try await SecondFactorFlowTests.loginUntilVerify(client, &screen, phoneId: phone.id)
                try await screen.send(["action": "inputSecondFactor", "pin": Self.pin, "biometrics": "match"])
                #expect(try await screen.next().error?.code == "FACTOR_NOT_OFFERED")
                try await screen.send(["action": "cancel"])
                _ = try await screen.settledFlow()
            }
        }
    }

    /// Without an enrolled feature the enrolment offers the PIN alone, and both are refused.
    @Test func aPhoneWithoutAFeatureSetsThePinAlone() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            _ = try await SecondFactorFlowTests.settings(client, phoneId: phone.id, ["biometricsDisabled": true])
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                let (flow, _) = try await Self.enrolUntilSet(client, &screen, phoneId: phone.id, user: "alice")
                #expect(flow.currentInteraction?.secondFactorInfo == .pinOnly)
                try await screen.send(["action": "inputSecondFactor", "pin": Self.pin, "biometrics": "match"])
                #expect(try await screen.next().error?.code == "BIOMETRICS_UNAVAILABLE")
                try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
                #expect(try await screen.settledFlow().state == .done)
                #expect(try await client.phoneDetail(phone.id).biometrics.hasEnabledBiometrics == false)
            }
        }
    }

    /// Seed 001: the configuration may skip the confirmation and the second factor; with both
    /// skipped a login ends on the phone without any input, with one the other is asked.
    @Test func stepsTheConfigurationSkipsAreNotAsked() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let silent = try await client.startSession("login", user: "alice", extra: ["skipConfirmation": true, "skipSecondFactor": true])
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": silent.qrText])
            var flow = try await screen.settledFlow()
            #expect(flow.state == .done)
            #expect(flow.session?.skipSecondFactor == true)
            #expect(try await client.backendSession(silent.id).status == .loggedin)

            let confirmOnly = try await client.startSession("login", user: "alice", extra: ["skipSecondFactor": true])
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": confirmOnly.qrText])
            flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.confirmSessionInfo?.secondFactorNeeded == false)
            try await screen.send(["action": "confirmSession"])
            #expect(try await screen.settledFlow().state == .done)
            #expect(try await client.backendSession(confirmOnly.id).status == .loggedin)

            let refused = try await client.send(
                .post, "/api/backend/sessions",
                json: ["type": "transaction", "userId": "alice", "transaction": "Pay 1 EUR", "skipSecondFactor": true])
            #expect(refused.errorCode == "INVALID_FIELD")
        }
    }

    /// Seed 001: the backend sets announceInfo per session, with a logo; the phone's flow carries
    /// what the console or a script set, and the server's defaults otherwise.
    @Test func theSessionsAnnouncementIsOnThePhonesFlow() async throws {
        let logo = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let refused = try await client.send(
                .post, "/api/backend/sessions", json: ["type": "enrol", "userId": "alice", "announceInfo": ["Shop": "x\u{0}"]])
            #expect(refused.status == .badRequest)
            #expect(refused.errorCode == "INVALID_FIELD")
            let session = try await client.startSession(
                "enrol", user: "alice", extra: ["announceInfo": ["Shop": "ACME Ltd"], "announceLogo": logo])
            let started = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": session.qrText])
            #expect(started.status == .accepted)
            let flow = try #require(try await client.phoneDetail(phone.id).flow)
            #expect(flow.session?.announceInfo == ["Shop": "ACME Ltd"])
            #expect(flow.session?.announceLogo == logo)
        }
    }

    /// Seed 002: the optional userInput given with a second factor reaches the relying party,
    /// as the one given at confirmation does; unreadable text is refused and counts nothing.
    @Test func userInputGivenWithTheSecondFactorReachesTheServer() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            var (flow, sessionId) = try await SecondFactorFlowTests.loginUntilVerify(client, &screen, phoneId: phoneId)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin, "userInput": "bad\u{0}text"])
            #expect(try await screen.next().error?.code == "INVALID_FIELD")
            try await screen.send(["action": "inputSecondFactor", "pin": "111000", "userInput": "not with a wrong PIN"])
            flow = try await screen.settledFlow()
            #expect(flow.previousInteractionResult?.type == .pinFail)
            #expect(try await client.backendSession(sessionId).userInput == nil)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin, "userInput": "order 42, gift wrapped"])
            #expect(try await screen.settledFlow().state == .done)
            let session = try await client.backendSession(sessionId)
            #expect(session.status == .loggedin)
            #expect(session.userInput == "order 42, gift wrapped")

            // the phone's own flows have no relying party to take it
            _ = try await SecondFactorFlowTests.startFlow(client, &screen, phoneId: phoneId, .changePin)
            try await screen.send(["action": "inputSecondFactor", "pin": Self.pin, "userInput": "hello"])
            #expect(try await screen.next().error?.code == "USER_INPUT_NOT_EXPECTED")
        }
    }
}
