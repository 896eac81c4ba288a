import Crypto
import Foundation
import OTP
import _CryptoExtras

/// The token's own RSA key, made on the phone as privacyIDEA's app makes it (4096 bits), and the
/// server's public key privacyIDEA sends back at registration. Both sides sign with PKCS #1 v1.5
/// over SHA-256 (privacyIDEA: "Not all Androids support PSS padding") and send the signature in
/// base32.
public struct PushTokenKey: Sendable {
    public static let bits = 4096
    let key: _RSA.Signing.PrivateKey

    /// A new key: about a second of one core's work at 4096 bits, so callers make it off the
    /// threads that answer requests.
    public static func generate() throws(PrivacyIDEAError) -> PushTokenKey {
        do { return PushTokenKey(key: try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits))) } catch {
            throw .key("the token's key could not be made: \(error)")
        }
    }

    /// The key as it is kept (PKCS #8 DER).
    public init(pkcs8 bytes: Data) throws(PrivacyIDEAError) {
        do { key = try _RSA.Signing.PrivateKey(derRepresentation: bytes) } catch { throw .key("the kept token key cannot be read") }
    }

    init(key: _RSA.Signing.PrivateKey) { self.key = key }

    public var pkcs8: Data { key.pkcs8DERRepresentation }

    /// What the registration's `pubkey` carries: the SubjectPublicKeyInfo DER in base64, which
    /// privacyIDEA wraps in PEM lines itself.
    public var publicKeyForServer: String { key.publicKey.derRepresentation.base64EncodedString() }

    public func sign(_ message: String) throws(PrivacyIDEAError) -> String {
        do { return Base32.encode(try key.signature(for: Data(message.utf8), padding: .insecurePKCS1v1_5).rawRepresentation) } catch {
            throw .key("the token's key could not sign: \(error)")
        }
    }
}

/// privacyIDEA's key for one token, as its registration answer gives it (a PEM body without the
/// header lines, or a whole PEM).
public struct PrivacyIDEAServerKey: Sendable {
    let key: _RSA.Signing.PublicKey
    /// The text as privacyIDEA sent it, which is what the phone keeps.
    public let text: String

    public init(_ text: String) throws(PrivacyIDEAError) {
        let body = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body) else { throw .answer("the server's public key is not base64") }
        do { key = try _RSA.Signing.PublicKey(derRepresentation: der) } catch {
            throw .answer("the server's public key is not an RSA public key of 2048 bits or more")
        }
        self.text = text
    }

    public func isValid(signature: String, for message: String) -> Bool {
        guard let bytes = try? Base32.decode(signature) else { return false }
        return key.isValidSignature(.init(rawRepresentation: bytes), for: Data(message.utf8), padding: .insecurePKCS1v1_5)
    }
}
