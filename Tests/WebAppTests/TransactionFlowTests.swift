import AuthFlow
import Backend
import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import Testing
import WebApp

/// SIGN_TRANSACTION and the login's extras (a pre-selected account, the user's input) on a
/// live server, with a scripted phone.
@Suite(.timeLimit(.minutes(2))) struct TransactionFlowTests {
    static let text = "Pay 120.00 EUR to ACME Ltd\nIBAN CH93 0076 2011 6238 5295 7"

    @Test func aTransactionIsConfirmedSignedAndVerified() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let session = try await client.startSession("transaction", user: "alice", extra: ["transaction": Self.text])
            #expect(session.transaction == Self.text)
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
            var flow = try await screen.settledFlow()
            #expect(flow.type == .signTransaction)
            #expect(flow.transaction == Self.text)
            #expect(flow.currentInteraction?.type == .confirm)

            // The PIN cannot come before the transaction is confirmed.
            try await screen.send(["action": "confirmSession", "userInput": "approved at the branch"])
            flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.type == .confirmTransaction)
            try await screen.send(["action": "inputSecondFactor", "pin": "260418"])
            #expect(try await screen.next().error?.code == "UNEXPECTED_INPUT")

            try await screen.send(["action": "confirmTransaction"])
            flow = try await screen.nextFlow()
            #expect(flow.state == .processing)
            #expect(flow.currentInteraction?.inputTypes == [.confirm])
            flow = try await screen.nextFlow()
            #expect(flow.currentInteraction?.type == .verifySecondFactor)
            #expect(flow.previousInteractionResult?.interactionType == .confirmTransaction)
            var state = try await client.backendSession(session.id)
            #expect(state.transactionSigned)
            #expect(state.status == .confirmed)
            #expect(state.userInput == "approved at the branch")

            try await screen.send(["action": "inputSecondFactor", "pin": "260418"])
            #expect(try await screen.settledFlow().state == .done)
            state = try await client.backendSession(session.id)
            #expect(state.status == .signed)
            #expect(!state.loggedin)
        }
    }

    @Test func aPreselectedLoginOffersOneAccountAndBadUserInputChangesNothing() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            try await enrol(client, &screen, phoneId: phoneId, user: "alice")
            let accounts = try await client.phoneDetail(phoneId).accounts.map(\.id)
            #expect(accounts.count == 2)

            let session = try await client.startSession("login", user: "alice", extra: ["accountId": accounts[1]])
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["link": session.deepLink])
            var flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.confirmSessionInfo?.accounts.map(\.id) == [accounts[1]])

            for bad in [String(repeating: "x", count: 501), "left\u{202E}right"] {
                try await screen.send(["action": "confirmSession", "userInput": bad])
                let refusal = try await screen.next()
                #expect(refusal.error?.code == "INVALID_FIELD")
            }
            #expect(try await client.backendSession(session.id).status == .redeemed)
            try await screen.send(["action": "confirmSession"])
            flow = try await screen.settledFlow()
            #expect(flow.currentInteraction?.type == .verifySecondFactor)
            #expect(try await client.backendSession(session.id).accountId == accounts[1])
            #expect(try await client.backendSession(session.id).userInput == nil)
        }
    }

    @Test func aTransactionCanNotBeStartedWithoutItsText() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let missing = try await client.send(.post, "/api/backend/sessions", json: ["type": "transaction", "userId": "alice"])
            #expect(missing.status == .badRequest)
            #expect(missing.errorCode == "INVALID_FIELD")
            let unknownUser = try await client.send(
                .post, "/api/backend/sessions",
                json: ["type": "transaction", "userId": "nobody", "transaction": Self.text])
            #expect(unknownUser.status == .notFound)
            #expect(unknownUser.errorCode == "USER_NOT_ENROLLED")
            let list = try await client.send(.get, "/api/backend/sessions")
            #expect(String(decoding: list.body, as: UTF8.self).contains("\"sessions\":[]"))
        }
    }
}
