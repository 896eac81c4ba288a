import Foundation
import OutOfBand
import PushService
import TestDoubles
import Testing

/// The service accounts and RFC 7523's JWT-bearer grant: a token for an assertion google-auth
/// would sign, and each refusal for one it would not, on a clock the test moves.
@Suite struct TokenEndpointTests {
    static let endpoint = "https://authphone.example/oauth2/token"
    let clock = TestClock()
    let service: PushService
    let account: ServiceAccount
    let sender: GoogleAuthSender

    /// One store for all: its account's key is made once (a debug build takes a second for it).
    static let store = Result { try PushStore.inMemory() }

    init() async throws {
        let clock = clock
        service = PushService(store: try Self.store.get(), now: { clock.now() })
        account = try await service.serviceAccount(project: "privacyidea-push")
        let file = account.keyFile(tokenEndpoint: Self.endpoint)
        sender = try GoogleAuthSender(privateKeyPEM: file.privateKey, keyId: file.privateKeyId, clientEmail: file.clientEmail)
    }

    func request(_ assertion: String) async throws(OAuthError) -> AccessTokenGrant {
        try await service.issueAccessToken(form: GoogleAuthSender.tokenRequest(assertion), tokenEndpoint: Self.endpoint)
    }

    /// An assertion google-auth would sign now, with `changes` made to its header and claims:
    /// each a value as JSON text, or nil to leave the field out.
    func assertion(header changes: [String: String?] = [:], claims claimChanges: [String: String?] = [:], by signer: GoogleAuthSender? = nil)
        throws -> String
    {
        func apply(_ changes: [String: String?], to base: [String: Any]) throws -> [String: Any] {
            try changes.reduce(into: base) { fields, change in
                fields[change.key] = try change.value.map { try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) }
            }
        }
        return try (signer ?? sender).assertion(
            header: try apply(changes, to: sender.header), claims: try apply(claimChanges, to: sender.claims(at: clock.now())))
    }

    @Test func theKeyFileIsGooglesShapeWithThisServersTokenEndpoint() throws {
        let file = account.keyFile(tokenEndpoint: Self.endpoint)
        #expect(file.type == "service_account")
        #expect(file.projectId == "privacyidea-push")
        #expect(file.clientEmail == "fcm-sender@privacyidea-push.iam.authphone.invalid")
        #expect(file.tokenUri == Self.endpoint)
        #expect(file.universeDomain == "googleapis.com")
        #expect(file.privateKey.hasPrefix("-----BEGIN PRIVATE KEY-----\n") && file.privateKey.hasSuffix("-----END PRIVATE KEY-----\n"))
        #expect(file.privateKeyId.count == 40 && file.privateKeyId.allSatisfy(\.isHexDigit))
        #expect(file.clientId.count == 21 && file.clientId.allSatisfy(\.isNumber))
        #expect(ServiceAccount.project(ofClientEmail: file.clientEmail) == "privacyidea-push")
        for lookalike in [
            "fcm-sender@privacyidea-push.iam.gserviceaccount.com", "x@privacyidea-push.iam.authphone.invalid", "fcm-sender@BAD.iam.authphone.invalid",
        ] {
            #expect(ServiceAccount.project(ofClientEmail: lookalike) == nil, "\(lookalike)")
        }
    }

    @Test func projectIdsAreGooglesShape() {
        for good in ["authphone", "privacyidea-push", "a23456", String(repeating: "a", count: 30)] {
            #expect(FCMProject.isWellFormed(good), "\(good)")
        }
        for bad in ["short", "1project", "Project", "project-", "pro_ject", "../etc", String(repeating: "a", count: 31), "projét"] {
            #expect(!FCMProject.isWellFormed(bad), "\(bad)")
        }
    }

    /// Made once: every later ask, a reset of the deliveries and a restart on the same file give the same key.
    @Test func theKeyIsMadeOnceAndKept() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let first = try await PushService(store: try .open(path: file)).serviceAccount(project: "kept-project")
        let restarted = PushService(store: try .open(path: file))
        try await restarted.reset()
        let again = try await restarted.serviceAccount(project: "kept-project")
        #expect(again.keyFile(tokenEndpoint: Self.endpoint) == first.keyFile(tokenEndpoint: Self.endpoint))
        let other = try await restarted.serviceAccount(project: "other-project")
        #expect(other.keyId != first.keyId)
    }

    @Test func anAssertionAsGoogleAuthSignsItGetsATokenForItsProject() async throws {
        let grant = try await request(try assertion())
        #expect(grant.tokenType == "Bearer" && grant.expiresIn == 3600)
        #expect(service.standing(ofAccessToken: grant.accessToken) == .live(project: "privacyidea-push"))
        #expect(try await request(try assertion()).accessToken != grant.accessToken)
        clock.advance(3599)
        #expect(service.standing(ofAccessToken: grant.accessToken).isLive)
        clock.advance(1)
        #expect(service.standing(ofAccessToken: grant.accessToken) == .expired)
        #expect(service.standing(ofAccessToken: "a-push-token-of-the-operators") == .notIssued)
    }

    /// The token_uri as the audience (other Google clients), an audience list, no kid, and
    /// parameters the endpoint does not know (RFC 6749 §3.2: ignored).
    @Test func otherClientsWaysAreTaken() async throws {
        _ = try await request(try assertion(claims: ["aud": #""\#(Self.endpoint)""#]))
        _ = try await request(try assertion(claims: ["aud": #"["https://elsewhere.example", "\#(Self.endpoint)"]"#]))
        _ = try await request(try assertion(header: ["kid": nil, "typ": nil]))
        let form = GoogleAuthSender.form([("scope", "x"), ("grant_type", GoogleAuthSender.jwtBearer), ("assertion", try assertion()), ("scope", "y")])
        _ = try await service.issueAccessToken(form: form, tokenEndpoint: Self.endpoint)
    }

    static let refusedAssertions: [(String, [String: String?], [String: String?], OAuthError.Code, String)] = [
        ("alg none", ["alg": #""none""#], [:], .invalidGrant, "'none'"),
        ("alg HS256", ["alg": #""HS256""#], [:], .invalidGrant, "RS256 only"),
        ("no alg", ["alg": nil], [:], .invalidGrant, "no algorithm"),
        ("another key's kid", ["kid": #""0000""#], [:], .invalidGrant, "kid"),
        ("an unknown issuer", [:], ["iss": #""fcm-sender@never-asked.iam.authphone.invalid""#], .invalidGrant, "client_email"),
        ("a Google account", [:], ["iss": #""firebase-adminsdk@project.iam.gserviceaccount.com""#], .invalidGrant, "client_email"),
        ("no issuer", [:], ["iss": nil], .invalidGrant, "iss"),
        ("another audience", [:], ["aud": #""https://evil.example/token""#], .invalidGrant, "audience"),
        ("no audience", [:], ["aud": nil], .invalidGrant, "audience"),
        ("expired", [:], ["iat": "1799996000", "exp": "1799999600"], .invalidGrant, "expired"),
        ("issued in the future", [:], ["iat": "1800000400", "exp": "1800003000"], .invalidGrant, "future"),
        ("living over an hour", [:], ["exp": "1800003601"], .invalidGrant, "longer than an hour"),
        ("no exp", [:], ["exp": nil], .invalidGrant, "exp and iat"),
        ("no iat", [:], ["iat": nil], .invalidGrant, "exp and iat"),
        ("exp as text", [:], ["exp": #""1800003600""#], .invalidGrant, "'exp' that is not a number"),
        ("exp as a boolean", [:], ["exp": "true"], .invalidGrant, "'exp' that is not a number"),
        ("iat as null", [:], ["iat": "null"], .invalidGrant, "'iat' that is not a number"),
        ("kid as null", ["kid": "null"], [:], .invalidGrant, "header has 'kid' that is not a string"),
        ("alg as a number", ["alg": "256"], [:], .invalidGrant, "header has 'alg' that is not a string"),
        ("iss as a number", [:], ["iss": "5"], .invalidGrant, "claims set has 'iss' that is not a string"),
        ("aud as a number", [:], ["aud": "5"], .invalidGrant, "'aud' that is not a string or strings"),
        ("aud listing a number", [:], ["aud": "[5]"], .invalidGrant, "'aud' that is not a string or strings"),
        ("no scope", [:], ["scope": nil], .invalidScope, "scope"),
        ("an empty scope", [:], ["scope": #""""#], .invalidScope, "scope"),
    ]

    @Test(arguments: refusedAssertions)
    func assertionsRefused(_ what: String, header: [String: String?], claims: [String: String?], code: OAuthError.Code, mentions: String) async throws
    {
        let assertion = try assertion(header: header, claims: claims)
        let refusal = await #expect(throws: OAuthError.self, "\(what)") { try await request(assertion) }
        #expect(refusal?.code == code, "\(what)")
        #expect(refusal?.description.contains(mentions) == true, "\(what): \(refusal?.description ?? "")")
        #expect(refusal.map { !$0.description.contains(assertion.prefix(20)) } == true, "\(what): the assertion is echoed")
    }

    /// Signed by another key, or altered after signing, or not a JWT at all.
    @Test func forgedAndMalformedAssertionsAreRefused() async throws {
        let forger = try sender.withAnotherKey()
        let signed = try assertion()
        let parts = signed.split(separator: ".").map(String.init)
        let otherClaims = try assertion(claims: ["scope": #""https://www.googleapis.com/auth/firebase.messaging""#]).split(separator: ".")[1]
        let duplicateClaim = Base64URL.encode(Array(#"{"iss": "a", "iss": "b"}"#.utf8))
        let cases: [(String, String)] = [
            (try assertion(by: forger), "signature"),
            ([parts[0], String(otherClaims), parts[2]].joined(separator: "."), "signature"),
            ([parts[0], parts[1], ""].joined(separator: "."), "signature"),
            (parts[0] + "." + parts[1], "not a JWT"),
            ([parts[0], parts[1], "not+base64"].joined(separator: "."), "not a JWT"),
            ([Base64URL.encode(Array("not json".utf8)), parts[1], parts[2]].joined(separator: "."), "header is not JSON"),
            ([Base64URL.encode(Array("[]".utf8)), parts[1], parts[2]].joined(separator: "."), "header is not a JSON object"),
            ([parts[0], duplicateClaim, parts[2]].joined(separator: "."), "claims set is not JSON"),
        ]
        for (assertion, mentions) in cases {
            let refusal = await #expect(throws: OAuthError.self, "\(mentions)") { try await request(assertion) }
            #expect(refusal?.code == .invalidGrant)
            #expect(refusal?.description.contains(mentions) == true, "\(refusal?.description ?? "")")
        }
    }

    static let refusedForms: [(String, OAuthError.Code, String)] = [
        ("", .invalidRequest, "'grant_type' is missing"),
        ("assertion=x", .invalidRequest, "'grant_type' is missing"),
        ("grant_type=client_credentials&assertion=x", .unsupportedGrantType, "'client_credentials'"),
        ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer", .invalidRequest, "'assertion' is missing"),
        ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=", .invalidRequest, "'assertion' is missing"),
        ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a&assertion=b", .invalidRequest, "more than once"),
        ("grant_type=%ZZ", .invalidRequest, "not a form"),
    ]

    @Test(arguments: refusedForms)
    func formsRefused(_ form: String, code: OAuthError.Code, mentions: String) async {
        let refusal = await #expect(throws: OAuthError.self) {
            try await service.issueAccessToken(form: Array(form.utf8), tokenEndpoint: Self.endpoint)
        }
        #expect(refusal?.code == code)
        #expect(refusal?.status == 400)
        #expect(refusal?.description.contains(mentions) == true, "\(refusal?.description ?? "")")
    }
}
