import CSodium

/// Turns a PIN into an Ed25519 key pair with Argon2id, so that the backend only ever holds a
/// public key: it can check a proof of the PIN without seeing or storing the PIN, and each
/// guess at it costs an Argon2id run.
public struct PinKeyDerivation: Sendable, Equatable {
    /// Argon2id work factors. `interactive` is libsodium's recommendation for interactive use;
    /// `fast` exists so that hundreds of simulated phones (tests, load runs) stay quick.
    public struct Profile: Sendable, Equatable {
        public let name: String
        public let opsLimit: Int
        public let memLimit: Int

        public init(name: String, opsLimit: Int, memLimit: Int) throws(SodiumError) {
            guard opsLimit >= Int(crypto_pwhash_argon2id_OPSLIMIT_MIN) else {
                throw .invalidParameters("Argon2id opsLimit must be at least \(crypto_pwhash_argon2id_OPSLIMIT_MIN)")
            }
            guard memLimit >= Int(crypto_pwhash_argon2id_MEMLIMIT_MIN), memLimit <= 1 << 31 else {
                throw .invalidParameters("Argon2id memLimit must be between \(crypto_pwhash_argon2id_MEMLIMIT_MIN) bytes and 2 GiB")
            }
            self.name = name
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        private init(uncheckedName name: String, opsLimit: Int, memLimit: Int) {
            self.name = name
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        public static let interactive = Profile(
            uncheckedName: "interactive",
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
            memLimit: Int(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))
        public static let moderate = Profile(
            uncheckedName: "moderate",
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_MODERATE),
            memLimit: Int(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
        public static let fast = Profile(uncheckedName: "fast", opsLimit: 1, memLimit: 64 * 1024)

        public static let named: [String: Profile] = [
            interactive.name: interactive, moderate.name: moderate, fast.name: fast,
        ]
    }

    public static let saltLength = Argon2id.saltLength
    public let profile: Profile

    public init(profile: Profile) {
        self.profile = profile
    }

    /// Derives the PIN's key pair; the intermediate seed is wiped before returning.
    public func keyPair(pin: GuardedBytes, salt: [UInt8]) throws(SodiumError) -> Ed25519.KeyPair {
        var seed = [UInt8](repeating: 0, count: Ed25519.seedLength)
        defer { sodium_memzero(&seed, seed.count) }
        // Array's withUnsafeMutableBytes throws untyped: the error comes out through a Result
        try seed.withUnsafeMutableBytes { output in
            Result { () throws(SodiumError) in
                try Argon2id.derive(into: output, from: pin, what: "the PIN", salt: salt, opsLimit: profile.opsLimit, memLimit: profile.memLimit)
            }
        }.get()
        return try Ed25519.KeyPair(seed: seed)
    }
}
