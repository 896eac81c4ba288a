import CSodium

/// Secrets sealed with a passphrase a person chose: Argon2id (`crypto_pwhash`, ALG_ARGON2ID13)
/// turns the passphrase and a random salt into a key, `crypto_secretbox` (XSalsa20-Poly1305)
/// seals with it. Each guess at the passphrase costs an Argon2id run, and a box whose bytes
/// were changed does not open at all.
public enum PassphraseBox {
    /// Argon2id's work factors. Whoever opens a box needs the ones it was sealed with, so they
    /// travel with it; a reader checks them against its own bounds before it spends them.
    public struct Cost: Sendable, Equatable {
        public let opsLimit: Int
        public let memLimit: Int

        public init(opsLimit: Int, memLimit: Int) {
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        /// libsodium's recommendation for a person waiting (2 passes, 64 MiB).
        public static let interactive = Cost(
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE), memLimit: Int(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))
        /// libsodium's next step up (3 passes, 256 MiB).
        public static let moderate = Cost(
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_MODERATE), memLimit: Int(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
        /// The least Argon2id accepts (1 pass, 8 KiB): for tests, never for a file that leaves the machine.
        public static let minimum = Cost(
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_MIN), memLimit: Int(crypto_pwhash_argon2id_MEMLIMIT_MIN))
    }

    public static let saltLength = Argon2id.saltLength
    public static let nonceLength = Int(crypto_secretbox_NONCEBYTES)
    static let keyLength = Int(crypto_secretbox_KEYBYTES)

    /// The box's key, in wiped memory: the passphrase never leaves its guarded memory but for
    /// the Argon2id call itself.
    public static func key(passphrase: GuardedBytes, salt: [UInt8], cost: Cost) throws(SodiumError) -> SecretBytes {
        guard cost.opsLimit >= Cost.minimum.opsLimit, cost.memLimit >= Cost.minimum.memLimit else {
            throw .invalidParameters("Argon2id limits below libsodium's minimum")
        }
        return try SecretBytes(count: keyLength) { (key: UnsafeMutableRawBufferPointer) throws(SodiumError) in
            try Argon2id.derive(into: key, from: passphrase, what: "the passphrase", salt: salt, opsLimit: cost.opsLimit, memLimit: cost.memLimit)
        }
    }

    /// `message` sealed under `key` with a fresh random nonce, which the opener needs too.
    public static func seal(_ message: some Collection<UInt8>, key: SecretBytes) throws(SodiumError) -> (nonce: [UInt8], box: [UInt8]) {
        guard key.count == keyLength else { throw .invalidKeyLength(expected: keyLength, got: key.count) }
        let nonce = try Sodium.randomBytes(nonceLength)
        var input = Array(message)
        defer { sodium_memzero(&input, input.count) }
        var box = [UInt8](repeating: 0, count: input.count + Int(crypto_secretbox_MACBYTES))
        key.withBytes { k in
            _ = crypto_secretbox_easy(&box, input, UInt64(input.count), nonce, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return (nonce, box)
    }

    /// The message, in wiped memory; `.openFailed` when the key is wrong or a byte of the box or
    /// its nonce was changed.
    public static func open(_ box: [UInt8], nonce: [UInt8], key: SecretBytes) throws(SodiumError) -> SecretBytes {
        try Sodium.ready()
        guard key.count == keyLength else { throw .invalidKeyLength(expected: keyLength, got: key.count) }
        guard nonce.count == nonceLength, box.count >= Int(crypto_secretbox_MACBYTES) else { throw .openFailed }
        return try SecretBytes(count: box.count - Int(crypto_secretbox_MACBYTES)) { (message: UnsafeMutableRawBufferPointer) throws(SodiumError) in
            let status = key.withBytes { k in
                crypto_secretbox_open_easy(
                    message.baseAddress!.assumingMemoryBound(to: UInt8.self), box, UInt64(box.count), nonce,
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            guard status == 0 else { throw .openFailed }
        }
    }
}
