import CSodium

/// Ed25519 signatures (RFC 8032) through libsodium: account keys on the phone, the server key
/// of the backend, and keys derived from a PIN.
public enum Ed25519 {
    public static let publicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)
    public static let secretKeyLength = Int(crypto_sign_SECRETKEYBYTES)
    public static let seedLength = Int(crypto_sign_SEEDBYTES)
    public static let signatureLength = Int(crypto_sign_BYTES)

    /// A key pair whose secret half is wiped when the last copy goes.
    public struct KeyPair: Sendable {
        public let publicKey: [UInt8]
        public let secretKey: SecretBytes

        /// A fresh random key pair.
        public static func generate() throws(SodiumError) -> KeyPair {
            try Sodium.ready()
            var pk = [UInt8](repeating: 0, count: publicKeyLength)
            var sk = [UInt8](repeating: 0, count: secretKeyLength)
            defer { sodium_memzero(&sk, sk.count) }
            _ = crypto_sign_keypair(&pk, &sk)
            return KeyPair(publicKey: pk, secretKey: SecretBytes(copying: sk))
        }

        /// The key pair determined by a 32-byte seed (RFC 8032's "private key"); the caller wipes its seed.
        public init(seed: some Collection<UInt8>) throws(SodiumError) {
            try Sodium.ready()
            guard seed.count == seedLength else { throw .invalidKeyLength(expected: seedLength, got: seed.count) }
            var pk = [UInt8](repeating: 0, count: publicKeyLength)
            var sk = [UInt8](repeating: 0, count: secretKeyLength)
            var bytes = Array(seed)
            defer {
                sodium_memzero(&sk, sk.count)
                sodium_memzero(&bytes, bytes.count)
            }
            _ = crypto_sign_seed_keypair(&pk, &sk, bytes)
            publicKey = pk
            secretKey = SecretBytes(copying: sk)
        }

        /// Restores a stored key pair from its 64-byte libsodium secret key.
        public init(secretKey bytes: [UInt8]) throws(SodiumError) {
            guard bytes.count == secretKeyLength else { throw .invalidKeyLength(expected: secretKeyLength, got: bytes.count) }
            secretKey = SecretBytes(copying: bytes)
            publicKey = Array(bytes[seedLength...])  // libsodium's secret key is seed ‖ public key
        }

        private init(publicKey: [UInt8], secretKey: SecretBytes) {
            self.publicKey = publicKey
            self.secretKey = secretKey
        }

        public func sign(_ message: some Collection<UInt8>) -> [UInt8] {
            let input = Array(message)
            var signature = [UInt8](repeating: 0, count: signatureLength)
            secretKey.withBytes { sk in
                input.withUnsafeBytes { m in
                    _ = crypto_sign_detached(
                        &signature, nil, m.bindMemory(to: UInt8.self).baseAddress, UInt64(m.count),
                        sk.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            return signature
        }

        /// The secret key's bytes, for storage in the phone's own database.
        public func exportSecretKey() -> [UInt8] {
            secretKey.withBytes { Array($0) }
        }
    }

    /// False for a wrong key, a wrong length or any altered bit; never throws.
    public static func verify(signature: [UInt8], message: some Collection<UInt8>, publicKey: [UInt8]) -> Bool {
        guard (try? Sodium.ready()) != nil,
            signature.count == signatureLength, publicKey.count == publicKeyLength
        else { return false }
        let input = Array(message)
        return input.withUnsafeBytes { m in
            crypto_sign_verify_detached(signature, m.bindMemory(to: UInt8.self).baseAddress, UInt64(m.count), publicKey) == 0
        }
    }
}
