import AuthFlow
import Backend
import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import Testing
import WebApp

/// LocalData (docs/behaviour.md#local-data): deleteAuthenticator touches the phone only; removing an account
/// removes it on both sides.
@Suite(.timeLimit(.minutes(2))) struct LocalDataTests {
    @Test func deleteAuthenticatorIsLocalAndRemoveAccountIsBothSides() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let phone = try await client.phoneDetail(phoneId)
            try await enrol(client, &screen, phoneId: phoneId, user: "bob")
            var local = try await client.send(.get, "/api/phones/\(phoneId)/local-data").decode(LocalData.self)
            #expect(local.accounts.map(\.userId).sorted() == ["alice", "bob"])
            #expect(local.authenticators.map(\.aaid) == ["PIN", "BIOMETRICS"])
            #expect(local.authenticators[0].registered && !local.authenticators[1].registered)
            #expect(local.deviceInformation.deviceId == phone.deviceId)

            // deleteAuthenticator: alice's keys leave the phone, the backend keeps her account
            let alice = try #require(local.accounts.first { $0.userId == "alice" })
            local = try await client.send(
                .post, "/api/phones/\(phoneId)/local-data/delete-authenticator",
                json: ["userId": "alice", "aaid": "PIN"]
            ).decode(LocalData.self)
            #expect(local.accounts.map(\.userId) == ["bob"])
            let login = try await client.startSession("login", user: "alice", extra: ["accountId": alice.id])
            #expect(login.status == .pending)  // the backend still knows the account
            let refused = try await client.send(.post, "/api/phones/\(phoneId)/local-data/delete-authenticator", json: ["userId": "zed"])
            #expect(refused.errorCode == "USER_NOT_FOUND")
            let badAAID = try await client.send(
                .post, "/api/phones/\(phoneId)/local-data/delete-authenticator",
                json: ["userId": "bob", "aaid": "IRIS"])
            #expect(badAAID.errorCode == "INVALID_FIELD")

            // remove account: gone here and at the backend
            let bob = try #require(local.accounts.first)
            local = try await client.send(.delete, "/api/phones/\(phoneId)/accounts/\(bob.id)").decode(LocalData.self)
            #expect(local.accounts.isEmpty)
            let gone = try await client.send(.post, "/api/backend/sessions", json: ["type": "login", "userId": "bob", "accountId": bob.id])
            #expect(gone.errorCode == "ACCOUNT_NOT_FOUND")
            #expect(try await client.send(.delete, "/api/phones/\(phoneId)/accounts/\(bob.id)").errorCode == "ACCOUNT_NOT_FOUND")
        }
    }
}
