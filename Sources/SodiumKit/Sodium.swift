import CSodium

/// libsodium must be initialised once before any other call; every entry point of this module
/// goes through `Sodium.ready()` so callers never have to remember it.
public enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    static func ready() throws(SodiumError) {
        guard initialised else { throw .initialisationFailed }
    }

    /// Cryptographically secure random bytes (challenges, tokens, salts).
    public static func randomBytes(_ count: Int) throws(SodiumError) -> [UInt8] {
        try ready()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return bytes
    }

    /// BLAKE2b: used for fingerprints (visual hashes), never for secrets.
    public static func genericHash(_ message: some Collection<UInt8>, length: Int = 32) throws(SodiumError) -> [UInt8] {
        try ready()
        guard (Int(crypto_generichash_BYTES_MIN)...Int(crypto_generichash_BYTES_MAX)).contains(length) else {
            throw .invalidParameters("hash length \(length) outside libsodium's range")
        }
        let input = Array(message)
        var out = [UInt8](repeating: 0, count: length)
        _ = out.withUnsafeMutableBytes { o in
            input.withUnsafeBytes { i in
                crypto_generichash(o.baseAddress!, length, i.baseAddress, UInt64(i.count), nil, 0)
            }
        }
        return out
    }

    /// Compares in constant time so that a verifier never leaks how many bytes matched.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 } }
    }
}
