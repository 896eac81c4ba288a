import SodiumKit

extension GuardedBytes {
    /// A PIN from a request or a screen's message, straight into guarded memory.
    static func pin(_ text: String) throws -> GuardedBytes {
        do { return try GuardedBytes(copying: text.utf8) } catch {
            throw APIError(.serviceUnavailable, "CRYPTO_ERROR", error.description)
        }
    }
}
