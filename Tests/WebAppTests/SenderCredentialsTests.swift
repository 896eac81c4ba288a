import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Phone
import TestDoubles
import Testing

@testable import PushService
@testable import WebApp

/// A real sender's credentials over HTTP: the key file to download, the token endpoint, and the
/// FCM route taking the tokens it issues (their own project's, unexpired), beside the push token
/// and the access key.
@Suite(.timeLimit(.minutes(2))) struct SenderCredentialsTests {
    let clock = TestClock()

    func configuration() -> AppConfiguration {
        var configuration = testConfiguration()
        configuration.publicURL = "https://authphone.example"
        let clock = clock
        configuration.now = { clock.now() }
        return configuration
    }

    /// The project's key file, and a Google client set up with it.
    func sender(_ client: some TestClientProtocol, project: String, headers: HTTPFields = [:]) async throws -> GoogleAuthSender {
        let answer = try await client.send(.get, "/api/push/projects/\(project)/service-account", headers: headers)
        #expect(answer.status == .ok)
        let file = try answer.decode(ServiceAccount.KeyFile.self)
        return try GoogleAuthSender(privateKeyPEM: file.privateKey, keyId: file.privateKeyId, clientEmail: file.clientEmail)
    }

    func tokenRequest(_ client: some TestClientProtocol, _ form: [UInt8], contentType: String = RequestGuardMiddleware.formType) async throws
        -> HTTPAnswer
    {
        try await client.execute(uri: "/oauth2/token", method: .post, headers: [.contentType: contentType], body: ByteBuffer(bytes: form)) {
            HTTPAnswer(status: $0.status, body: Data(buffer: $0.body), headers: $0.headers)
        }
    }

    func accessToken(_ client: some TestClientProtocol, _ sender: GoogleAuthSender) async throws -> String {
        let answer = try await tokenRequest(
            client, GoogleAuthSender.tokenRequest(try sender.assertion(header: sender.header, claims: sender.claims(at: clock.now()))))
        #expect(answer.status == .ok)
        #expect(answer.headers[.cacheControl] == "no-store")
        return try answer.decode(AccessTokenGrant.self).accessToken
    }

    /// A send to the phone's token with `bearer`: its HTTP status and FCM's error status, if any.
    func send(_ client: some TestClientProtocol, to phone: PhoneSummary, bearer: String?, project: String = "authphone") async throws
        -> (HTTPResponse.Status, String?)
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers[.authorization] = bearer.map { "Bearer \($0)" }
        let answer = try await client.send(
            .post, "/v1/projects/\(project)/messages:send", json: ["message": ["token": phone.fcmToken, "data": ["k": "v"]]], headers: headers)
        return (answer.status, try? answer.decode(FCMError.Body.self).error.status)
    }

    @Test func theKeyFileIsADownloadNamingThisServersTokenEndpoint() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let answer = try await client.send(.get, "/api/push/projects/privacyidea-push/service-account")
            #expect(answer.status == .ok)
            try await client.execute(uri: "/api/push/projects/privacyidea-push/service-account", method: .get) { response in
                #expect(response.headers[.contentDisposition] == #"attachment; filename="authphone-privacyidea-push-service-account.json""#)
                #expect(response.headers[.cacheControl] == "no-store")
                let file = try JSONDecoder().decode(ServiceAccount.KeyFile.self, from: Data(buffer: response.body))
                #expect(file.tokenUri == "https://authphone.example/oauth2/token")
                #expect(file.type == "service_account" && file.projectId == "privacyidea-push")
                #expect(file == (try answer.decode(ServiceAccount.KeyFile.self)), "a later ask gets the same account")
            }
            let refused = try await client.send(.get, "/api/push/projects/Not_A_Project/service-account")
            #expect(refused.status == .badRequest)
            #expect(refused.errorCode == "INVALID_PROJECT")
        }
    }

    @Test func anIssuedTokenSendsForItsOwnProjectUntilItExpires() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let token = try await accessToken(client, try await sender(client, project: "authphone"))
            let otherProjects = try await accessToken(client, try await sender(client, project: "someone-else"))
            #expect(try await send(client, to: phone, bearer: token) == (.ok, nil))
            #expect(try await send(client, to: phone, bearer: otherProjects) == (.forbidden, "PERMISSION_DENIED"))
            #expect(try await send(client, to: phone, bearer: AccessTokens.prefix + "never-issued") == (.unauthorized, "UNAUTHENTICATED"))
            // without --push-token any other token, or none, is taken as before
            #expect(try await send(client, to: phone, bearer: "anything") == (.ok, nil))
            #expect(try await send(client, to: phone, bearer: nil) == (.ok, nil))
            clock.advance(AccessTokens.lifetime)
            #expect(try await send(client, to: phone, bearer: token) == (.unauthorized, "UNAUTHENTICATED"))
            let log = try await client.send(.get, "/api/push/messages?phone=\(phone.id)").decode(PushLogPage.self).messages
            #expect(log.map(\.outcome).prefix(2) == [.unauthenticated, .inbox])
            #expect(log.contains { $0.outcome == .permissionDenied })
        }
    }

    struct PushLogPage: Decodable {
        let messages: [PushLogEntry]
    }

    @Test func theTokenEndpointRefusesAsRFC6749SaysAndNeverEchoesTheAssertion() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let forger = try await sender(client, project: "authphone").withAnotherKey()
            let forged = try forger.assertion(header: forger.header, claims: forger.claims(at: clock.now()))
            let refused = try await tokenRequest(client, GoogleAuthSender.tokenRequest(forged))
            #expect(refused.status == .badRequest)
            #expect(refused.headers[.cacheControl] == "no-store")
            let body = try refused.decode(OAuthError.Body.self)
            #expect(body.error == "invalid_grant" && body.errorDescription.contains("signature"))
            #expect(!String(decoding: refused.body, as: UTF8.self).contains(forged.prefix(16)))
            let unsupported = try await tokenRequest(client, GoogleAuthSender.form([("grant_type", "password")]))
            #expect(try unsupported.decode(OAuthError.Body.self).error == "unsupported_grant_type")
            // JSON is not what an OAuth client sends, and the cross-site guard knows the route's type
            let json = try await tokenRequest(client, Array(#"{"grant_type": "x"}"#.utf8), contentType: "application/json")
            #expect(json.status == .unsupportedMediaType)
        }
    }

    /// With an access key and a push token: the key file needs the key, the token endpoint needs
    /// none (the assertion is its proof), and the FCM route takes an issued token, the push token,
    /// and nothing else; an expired issued token is stopped at the doors.
    @Test func withAnAccessKeyAndAPushToken() async throws {
        var configuration = configuration()
        configuration.accessKey = "the-access-key-0123456789"
        configuration.pushToken = "the-push-token-0123456789"
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let key: HTTPFields = [.authorization: "Bearer the-access-key-0123456789", .contentType: "application/json"]
            #expect(try await client.send(.get, "/api/push/projects/authphone/service-account").errorCode == "ACCESS_KEY_REQUIRED")
            let token = try await accessToken(client, try await sender(client, project: "authphone", headers: key))
            let phone = try await client.send(.post, "/api/phones", json: ["name": "keyed"], headers: key).decode(PhoneSummary.self)
            #expect(try await send(client, to: phone, bearer: token) == (.ok, nil))
            #expect(try await send(client, to: phone, bearer: "the-push-token-0123456789") == (.ok, nil))
            #expect(try await send(client, to: phone, bearer: "the-access-key-0123456789") == (.unauthorized, "UNAUTHENTICATED"))
            #expect(try await send(client, to: phone, bearer: "anything").0 == .unauthorized)
            clock.advance(AccessTokens.lifetime)
            #expect(try await send(client, to: phone, bearer: token).0 == .unauthorized)
        }
    }
}
