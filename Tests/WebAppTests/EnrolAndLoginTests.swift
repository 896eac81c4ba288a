import AuthFlow
import Backend
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import Phone
import Testing
import WebApp

/// A scripted phone on a live server: HTTP for payloads, the screen's WebSocket for the flow.
@Suite(.timeLimit(.minutes(2))) struct EnrolAndLoginTests {
    static let pin = "260418"

    @Test func enrolThenLoginThenBlockAfterThreeWrongPins() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                let hello = try await screen.next()
                #expect(hello.type == "phone")
                #expect(hello.phone?.accounts == [])
                #expect(hello.phone?.hasPin == false)

                // ENROL: CONFIRM → SET_SECOND_FACTOR → DONE
                let enrol = try await client.startSession("enrol", user: "alice", displayName: "Alice Example")
                #expect(enrol.status == .pending)
                let started = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrol.qrText])
                #expect(started.status == .accepted)
                var flow = try await screen.nextFlow()
                #expect(flow.type == .enrol)
                #expect(flow.state == .waitForInput)
                #expect(flow.currentInteraction?.type == .confirm)
                #expect(flow.session?.enrolInfo?.displayName == "Alice Example")
                #expect(flow.session?.server.visualHash?.colors.count == 16)
                #expect(try await client.backendSession(enrol.id).status == .redeemed)

                try await screen.send(["action": "confirmSession"])
                flow = try await screen.nextFlow()
                #expect(flow.state == .processing)
                #expect(flow.currentInteraction?.inputTypes == [.confirm])
                flow = try await screen.nextFlow()
                #expect(flow.currentInteraction?.type == .setSecondFactor)
                #expect(try await client.backendSession(enrol.id).status == .confirmed)

                // A common PIN is refused with a reason and the flow stays where it was.
                try await screen.send(["action": "inputSecondFactor", "pin": "123456"])
                let refusal = try await screen.next()
                #expect(refusal.error?.code == "PIN_TOO_COMMON")
                #expect(refusal.error?.message.contains("123456") == false)

                try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
                flow = try await screen.settledFlow()
                #expect(flow.state == .done)
                let enrolled = try await client.backendSession(enrol.id)
                #expect(enrolled.status == .enrolled)
                let local = try await client.phoneDetail(phone.id)
                #expect(local.hasPin)
                #expect(local.accounts.map(\.userId) == ["alice"])
                #expect(local.accounts.first?.id == enrolled.accountId)

                // LOGIN: CONFIRM (account) → VERIFY → wrong PIN → PIN_FAIL → right PIN → DONE
                let login = try await client.startSession("login", user: "alice")
                _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["link": login.deepLink])
                flow = try await screen.settledFlow()
                #expect(flow.type == .login)
                #expect(flow.currentInteraction?.confirmSessionInfo?.accounts.map(\.id) == enrolled.accountId.map { [$0] })
                try await screen.send(["action": "confirmSession", "account": enrolled.accountId ?? ""])
                flow = try await screen.settledFlow()
                #expect(flow.currentInteraction?.type == .verifySecondFactor)
                #expect(flow.secondFactorAccount == SecondFactorAccount(isBlocked: false, failedAttempts: 0, maxAttempts: 3))

                try await screen.send(["action": "inputSecondFactor", "pin": "918273"])
                flow = try await screen.settledFlow()
                #expect(flow.state == .waitForInput)
                #expect(flow.previousInteractionResult?.type == .pinFail)
                #expect(flow.secondFactorAccount?.failedAttempts == 1)

                try await screen.send(["action": "inputSecondFactor", "pin": Self.pin])
                flow = try await screen.settledFlow()
                #expect(flow.state == .done)
                let loggedIn = try await client.backendSession(login.id)
                #expect(loggedIn.status == .loggedin)
                #expect(loggedIn.loggedin)
                #expect(loggedIn.accountId == enrolled.accountId)

                // A success reset the count; three wrong PINs in a row block the PIN.
                let blocked = try await client.startSession("login", user: "alice")
                _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": blocked.qrText])
                _ = try await screen.settledFlow()
                try await screen.send(["action": "confirmSession"])
                flow = try await screen.settledFlow()
                #expect(flow.secondFactorAccount?.failedAttempts == 0)
                for attempt in 1...3 {
                    try await screen.send(["action": "inputSecondFactor", "pin": "402817"])
                    flow = try await screen.settledFlow()
                    #expect(flow.secondFactorAccount?.failedAttempts == attempt)
                }
                #expect(flow.state == .error)
                #expect(flow.error?.code == "PIN_BLOCKED")
                #expect(try await client.backendSession(blocked.id).status == .failed)

                // Blocked: even the right PIN gets no chance in the next login.
                let after = try await client.startSession("login", user: "alice")
                _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": after.qrText])
                _ = try await screen.settledFlow()
                try await screen.send(["action": "confirmSession"])
                flow = try await screen.settledFlow()
                #expect(flow.state == .error)
                #expect(flow.error?.code == "PIN_BLOCKED")
                #expect(try await client.backendSession(after.id).status == .failed)
            }
        }
    }

    @Test func cancelEndsTheFlowOnBothSides() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                let enrol = try await client.startSession("enrol", user: "bob")
                _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrol.qrText])
                _ = try await screen.settledFlow()
                try await screen.send(["action": "cancel"])
                let flow = try await screen.settledFlow()
                #expect(flow.state == .error)
                #expect(flow.error?.code == "USER_CANCELED")
                // By the time the screen shows the end, the backend has recorded it.
                #expect(try await client.backendSession(enrol.id).status == .canceled)
                // The token was used: the same QR cannot start another flow.
                let again = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrol.qrText])
                #expect(again.status == .gone)
                #expect(again.errorCode == "ENROL_QR_EXPIRED")
                #expect(try again.decode(ErrorWithSDKCode.self).error.sdkCode == 41)
            }
        }
    }

    @Test func aSecondTabSeesTheSameUpdatesAndAReloadResumes() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let enrol = try await client.startSession("enrol", user: "carol")
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var first = Screen(inbound, outbound)
                _ = try await first.next()
                _ = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": enrol.qrText])
                let shown = try await first.settledFlow()
                // A new connection (a second tab, or the page reloaded) starts from the current flow.
                try await client.ws("/api/phones/\(phone.id)/stream") { inbound2, outbound2, _ in
                    var second = Screen(inbound2, outbound2)
                    let hello = try await second.next()
                    #expect(hello.phone?.flow == shown)
                    try await second.send(["action": "confirmSession"])
                    #expect(try await second.settledFlow().currentInteraction?.type == .setSecondFactor)
                }
                // The first tab saw the input given in the second.
                #expect(try await first.settledFlow().currentInteraction?.type == .setSecondFactor)
            }
        }
    }
}
