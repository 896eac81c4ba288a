import CSodium

/// The one Argon2id call (`crypto_pwhash`, ALG_ARGON2ID13) behind the PIN's key and a
/// passphrase box: a secret a person chose, read only inside its guarded memory, stretched
/// into `output` with a salt, so that each guess at it costs an Argon2id run.
enum Argon2id {
    static let saltLength = Int(crypto_pwhash_argon2id_SALTBYTES)

    /// `what` names the secret in the errors ("the PIN", "the passphrase").
    static func derive(
        into output: UnsafeMutableRawBufferPointer, from secret: GuardedBytes, what: String, salt: [UInt8], opsLimit: Int, memLimit: Int
    ) throws(SodiumError) {
        try Sodium.ready()
        guard salt.count == saltLength else { throw .invalidSaltLength(expected: saltLength, got: salt.count) }
        guard secret.count > 0 else { throw .invalidParameters("\(what) is empty") }
        let status = secret.withBytes { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(output.count), chars.baseAddress!, UInt64(chars.count),
                    salt, UInt64(opsLimit), memLimit, crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard status == 0 else { throw .keyDerivationFailed }
    }
}
