import BackendAPI
import Foundation
import OutOfBand
import Phone
import SodiumKit
import TestDoubles
import Testing

/// What the phone checks before a session becomes a flow: where a payload may send it, and that
/// the session comes from the server whose key it pinned.
@Suite struct RedeemCheckTests {
    /// A payload naming a server off the allow-list, or another route of an allowed one, is
    /// refused before any connection (error 52).
    @Test(arguments: [
        ("https://elsewhere.test" + BackendRoutes.redeem, "SERVER_NOT_ALLOWED"),
        (TestServer.url + BackendRoutes.pending, "REDEEM_URL_NOT_ALLOWED"),
    ])
    func aPayloadGoesOnlyToAnAllowedRedeemRoute(redeemURL: String, code: String) async throws {
        let phone = try await PhoneUnderTest(on: .sqlite)
        let id = try await phone.newPhone()
        let payload = OutOfBandPayload(redeemData: .init(token: "token", redeemURL: try #require(URL(string: redeemURL))))

        let error = await #expect(throws: PhoneError.self) { try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: payload) }

        #expect(error?.code == code)
        #expect(error?.sdkCode == 52)
        #expect(phone.backend.sent.isEmpty)
        #expect(try await phone.phones.phone(id: id).session == nil)
    }

    /// A session whose signature is not the server's own key's starts no flow (error 48).
    @Test(arguments: TestEngine.available) func aSessionNotSignedByTheServersKeyStartsNoFlow(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let forged = phone.server.session(.enrol, signedBy: try Ed25519.KeyPair.generate())
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in forged }

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload())
        }

        #expect(error?.code == "SERVER_AUTHENTICATION_FAILED")
        #expect(error?.sdkCode == 48)
        #expect(await phone.flow(id) == nil)
        #expect(phone.backend.sent.count == 1)
    }

    /// The URL the phone enrolled at, answering with another key, is an impostor (or a server
    /// reset since): the login is refused, whatever the new key signed.
    @Test(arguments: TestEngine.available) func theEnrolledURLWithAnotherKeyIsRefused(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.enrolledPhone().id
        let impostor = try TestServer()
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in impostor.session(.login) }

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: impostor.payload())
        }

        #expect(error?.code == "SERVER_AUTHENTICATION_FAILED")
        #expect(error?.message.contains("differs from the one pinned at enrolment") == true)
        #expect(await phone.flow(id)?.type == .enrol)
    }
}
