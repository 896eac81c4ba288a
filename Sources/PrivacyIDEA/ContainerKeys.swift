import Crypto
import Foundation

/// The container's own key, made on the phone on privacyIDEA's only curve (secp384r1): it signs
/// every request privacyIDEA checks, with ECDSA over SHA-256 as its `verify_ecc` verifies, the
/// signature DER in padded base64url (`urlsafe_b64decode`).
public struct ContainerKey: Sendable {
    let key: P384.Signing.PrivateKey

    public static func generate() -> ContainerKey { ContainerKey(key: P384.Signing.PrivateKey()) }

    init(key: P384.Signing.PrivateKey) { self.key = key }

    /// The key as it is kept (the raw scalar).
    public init(raw: Data) throws(PrivacyIDEAError) {
        do { key = try P384.Signing.PrivateKey(rawRepresentation: raw) } catch { throw .key("the kept container key cannot be read") }
    }

    public var raw: Data { key.rawRepresentation }

    /// What privacyIDEA keeps as `public_key_client`: the SubjectPublicKeyInfo in PEM.
    public var publicKeyPEM: String { key.publicKey.pemRepresentation }

    public func sign(_ message: String) throws(PrivacyIDEAError) -> String {
        do { return Base64URLText.encode(try key.signature(for: SHA256.hash(data: Data(message.utf8))).derRepresentation) } catch {
            throw .key("the container's key could not sign: \(error)")
        }
    }
}

/// One synchronisation's X25519 key: privacyIDEA encrypts its answer (`encrypt_dict`) with
/// AES-GCM under the bare shared secret of this key and one of its own, made for the answer.
public struct ContainerSyncKey: Sendable {
    let key = Curve25519.KeyAgreement.PrivateKey()

    public init() {}

    /// `public_enc_key_client`: the raw key in padded base64url.
    public var publicKeyText: String { Base64URLText.encode(key.publicKey.rawRepresentation) }

    /// The answer's `container_dict_server` opened: its JSON text. A key, vector or tag that does
    /// not fit, or a text that does not open, is refused.
    public func open(_ sealed: SealedContainerAnswer) throws(PrivacyIDEAError) -> Data {
        guard sealed.algorithm.uppercased() == "AES", sealed.mode.uppercased() == "GCM" else {
            throw .sync("the answer is encrypted with \(sealed.algorithm) \(sealed.mode), not AES GCM")
        }
        guard let serverKey = Base64URLText.decode(sealed.serverKey), let vector = Base64URLText.decode(sealed.initVector),
            let tag = Base64URLText.decode(sealed.tag), let cipher = Base64URLText.decode(sealed.cipher)
        else { throw .sync("the answer's key, vector, tag or text is not base64url") }
        do {
            let secret = try key.sharedSecretFromKeyAgreement(with: .init(rawRepresentation: serverKey))
            let box = try AES.GCM.SealedBox(nonce: .init(data: vector), ciphertext: cipher, tag: tag)
            return try AES.GCM.open(box, using: SymmetricKey(data: secret.withUnsafeBytes { Data($0) }))
        } catch {
            throw .sync("the answer does not decrypt with this synchronisation's key")
        }
    }
}

/// The encrypted part of a synchronisation's answer, as privacyIDEA sends it.
public struct SealedContainerAnswer: Sendable, Equatable {
    public var serverKey: String
    public var algorithm: String
    public var mode: String
    public var initVector: String
    public var tag: String
    public var cipher: String
}

/// Base64url with padding, as Python's `urlsafe_b64encode` writes it; read with or without.
enum Base64URLText {
    static func encode(_ bytes: Data) -> String {
        bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    static func decode(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
