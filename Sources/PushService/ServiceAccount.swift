import Foundation
import _CryptoExtras

/// A sender's credentials for one FCM project, in the shape of the key file Google gives a
/// service account: a Google client that reads such a file (google-auth, privacyIDEA's Firebase
/// provider) signs its token requests with this key and sends them to the file's `token_uri`,
/// this server's token endpoint, so nothing but the send URL changes for it.
public struct ServiceAccount: Sendable {
    public let project: String
    /// The key's id: Google's `private_key_id`, the `kid` of the sender's assertions.
    public let keyId: String
    /// Google's numeric `client_id`; nothing here checks it, but clients read it.
    public let clientId: String
    let privateKey: _RSA.Signing.PrivateKey
    public let createdAt: Date

    public var publicKey: _RSA.Signing.PublicKey { privateKey.publicKey }
    public var clientEmail: String { Self.clientEmail(project: project) }

    /// Google's form (`NAME@PROJECT.iam.gserviceaccount.com`) under a domain reserved for names that
    /// resolve nowhere (RFC 2606 `.invalid`): no one mistakes it for a Google account, and it
    /// names its project, so an assertion's `iss` says which account to check it against.
    public static func clientEmail(project: String) -> String { "\(emailName)@\(project)\(emailDomain)" }

    /// The project of a client email this server gives out; nil for any other.
    public static func project(ofClientEmail email: String) -> String? {
        guard email.hasPrefix(emailName + "@"), email.hasSuffix(emailDomain) else { return nil }
        let project = String(email.dropFirst(emailName.count + 1).dropLast(emailDomain.count))
        return FCMProject.isWellFormed(project) ? project : nil
    }

    private static let emailName = "fcm-sender"
    private static let emailDomain = ".iam.authphone.invalid"

    /// A new account with a new RSA-2048 key, as Google makes them.
    static func make(project: String, at time: Date) throws -> ServiceAccount {
        var random = SystemRandomNumberGenerator()
        let keyId = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
        let clientId = String(Int.random(in: 1...9, using: &random)) + (0..<20).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
        return ServiceAccount(
            project: project, keyId: keyId, clientId: clientId, privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048), createdAt: time)
    }

    /// The key file a sender is given, its fields named as in Google's.
    public struct KeyFile: Codable, Equatable, Sendable {
        public var type: String
        public var projectId: String
        public var privateKeyId: String
        /// PKCS #8 PEM, as Google's.
        public var privateKey: String
        public var clientEmail: String
        public var clientId: String
        /// Google's consent page, as in Google's file: a service account never uses it, but tools
        /// that check a key file's shape look for it.
        public var authUri: String
        public var tokenUri: String
        /// Google's own: any other makes google-auth sign its own tokens and never ask `token_uri`.
        public var universeDomain: String

        enum CodingKeys: String, CodingKey {
            case type
            case projectId = "project_id"
            case privateKeyId = "private_key_id"
            case privateKey = "private_key"
            case clientEmail = "client_email"
            case clientId = "client_id"
            case authUri = "auth_uri"
            case tokenUri = "token_uri"
            case universeDomain = "universe_domain"
        }
    }

    /// The key file whose `token_uri` is `tokenEndpoint`, this server's token endpoint as senders reach it.
    public func keyFile(tokenEndpoint: String) -> KeyFile {
        KeyFile(
            type: "service_account", projectId: project, privateKeyId: keyId, privateKey: privateKey.pkcs8PEMRepresentation,
            clientEmail: clientEmail, clientId: clientId, authUri: "https://accounts.google.com/o/oauth2/auth", tokenUri: tokenEndpoint,
            universeDomain: "googleapis.com")
    }
}

/// A Firebase project id as Google allows them: 6 to 30 lower-case letters, digits and hyphens,
/// starting with a letter and not ending with a hyphen. Checked before a project names a key or
/// a file.
public enum FCMProject {
    public static func isWellFormed(_ project: String) -> Bool {
        project.wholeMatch(of: #/[a-z][a-z0-9-]{4,28}[a-z0-9]/#) != nil
    }
}
