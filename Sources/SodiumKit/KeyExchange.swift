import CSodium

/// X25519 key exchange (libsodium's crypto_kx): the phone and the backend agree on a shared
/// key at enrolment, each sending only a public key. The offline OTP key is the phone's
/// receiving key, which equals the backend's sending key.
public enum KeyExchange {
    public static let publicKeyLength = Int(crypto_kx_PUBLICKEYBYTES)
    public static let secretKeyLength = Int(crypto_kx_SECRETKEYBYTES)
    public static let sharedKeyLength = Int(crypto_kx_SESSIONKEYBYTES)

    public struct KeyPair: Sendable {
        public let publicKey: [UInt8]
        let secretKey: SecretBytes

        public static func generate() throws(SodiumError) -> KeyPair {
            try Sodium.ready()
            var pk = [UInt8](repeating: 0, count: publicKeyLength)
            var sk = [UInt8](repeating: 0, count: secretKeyLength)
            defer { sodium_memzero(&sk, sk.count) }
            _ = crypto_kx_keypair(&pk, &sk)
            return KeyPair(publicKey: pk, secretKey: SecretBytes(copying: sk))
        }

        /// The key both sides derive, seen from the phone (the client of the exchange).
        public func clientSharedKey(serverPublicKey: [UInt8]) throws(SodiumError) -> [UInt8] {
            try sharedKey(peer: serverPublicKey, asClient: true)
        }

        /// The same key, seen from the backend (the server of the exchange).
        public func serverSharedKey(clientPublicKey: [UInt8]) throws(SodiumError) -> [UInt8] {
            try sharedKey(peer: clientPublicKey, asClient: false)
        }

        /// The client's receiving key is the server's sending key: one key, both ends.
        private func sharedKey(peer: [UInt8], asClient: Bool) throws(SodiumError) -> [UInt8] {
            guard peer.count == publicKeyLength else { throw .invalidKeyLength(expected: publicKeyLength, got: peer.count) }
            var rx = [UInt8](repeating: 0, count: sharedKeyLength)
            var tx = [UInt8](repeating: 0, count: sharedKeyLength)
            let pk = publicKey
            let status = secretKey.withBytes { sk -> Int32 in
                let secret = sk.bindMemory(to: UInt8.self).baseAddress!
                return asClient
                    ? crypto_kx_client_session_keys(&rx, &tx, pk, secret, peer)
                    : crypto_kx_server_session_keys(&rx, &tx, pk, secret, peer)
            }
            // libsodium refuses a peer key that is not a usable curve point
            guard status == 0 else { throw .invalidParameters("the peer's public key is not a valid X25519 key") }
            if asClient {
                sodium_memzero(&tx, tx.count)
                return rx
            }
            sodium_memzero(&rx, rx.count)
            return tx
        }
    }
}
