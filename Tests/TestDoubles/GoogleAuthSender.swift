import Crypto
import Foundation
import OutOfBand
import _CryptoExtras

/// A sender's Google client, as google-auth 2.x is one (`service_account.Credentials`): it signs
/// a JWT-bearer assertion with a service account's key and posts it as a form to the key file's
/// `token_uri`. Its claims and header are google-auth's own, so a test changes only what it
/// means to break.
public struct GoogleAuthSender: Sendable {
    public static let jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// What google-auth names as every assertion's audience, whatever the key file says.
    public static let googleTokenEndpoint = "https://oauth2.googleapis.com/token"
    /// privacyIDEA's `SCOPES` (privacyidea/lib/smsprovider/FirebaseProvider.py), space-separated.
    public static let privacyIDEAScopes = [
        "cloud-platform", "datastore", "devstorage.read_write", "firebase", "identitytoolkit", "userinfo.email",
    ].map { "https://www.googleapis.com/auth/\($0)" }.joined(separator: " ")

    public let key: _RSA.Signing.PrivateKey
    public let keyId: String
    public let clientEmail: String

    /// The sender of a key file's `private_key` (PEM), `private_key_id` and `client_email`.
    public init(privateKeyPEM: String, keyId: String, clientEmail: String) throws {
        key = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        self.keyId = keyId
        self.clientEmail = clientEmail
    }

    /// The same account's names with a key of its own: a forger's.
    public func withAnotherKey() throws -> GoogleAuthSender {
        try GoogleAuthSender(privateKeyPEM: _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation, keyId: keyId, clientEmail: clientEmail)
    }

    /// google-auth's header: `{"typ": "JWT", "alg": "RS256", "kid": private_key_id}`.
    public var header: [String: Any] { ["typ": "JWT", "alg": "RS256", "kid": keyId] }

    /// google-auth's claims at `now`: an hour's life, Google's token endpoint as the audience.
    public func claims(at now: Date) -> [String: Any] {
        let issued = Int(now.timeIntervalSince1970)
        return ["iat": issued, "exp": issued + 3600, "iss": clientEmail, "aud": Self.googleTokenEndpoint, "scope": Self.privacyIDEAScopes]
    }

    /// The compact JWS of `header` and `claims`, RS256-signed with the key.
    public func assertion(header: [String: Any], claims: [String: Any]) throws -> String {
        let signingInput = try [header, claims].map { Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: $0))) }
            .joined(separator: ".")
        let signature = try key.signature(for: SHA256.hash(data: Array(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// The token request's form body, as google-auth encodes it (`urllib.parse.urlencode`).
    public static func form(_ parameters: [(String, String)]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let pairs = parameters.map { name, value in
            [name, value].map { $0.addingPercentEncoding(withAllowedCharacters: allowed)! }.joined(separator: "=")
        }
        return Array(pairs.joined(separator: "&").utf8)
    }

    /// The form of a JWT-bearer request for `assertion`.
    public static func tokenRequest(_ assertion: String) -> [UInt8] {
        form([("grant_type", jwtBearer), ("assertion", assertion)])
    }
}
