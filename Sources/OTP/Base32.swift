/// RFC 4648's base32 (A-Z, 2-7), read as Google Authenticator reads a key URI's secret: any
/// case, spaces and hyphens ignored (people type keys in groups), trailing `=` padding optional.
/// Strict about the rest: another character, or a length no byte string encodes (a key cut off).
enum Base32 {
    static func decode(_ text: String) throws(OTPAuthError) -> [UInt8] {
        var symbols: [UInt8] = []
        var position = 0
        for character in text.utf8 {
            position += 1
            if character == UInt8(ascii: " ") || character == UInt8(ascii: "-") { continue }
            guard let value = value(of: character) else {
                // the character itself is not shown: it is part of a secret
                throw .invalidSecret("the secret has a character that is not base32 (A-Z, 2-7) at position \(position)")
            }
            symbols.append(value)
        }
        while symbols.last == padding { symbols.removeLast() }
        guard !symbols.contains(padding) else { throw .invalidSecret("the secret has '=' padding before its end") }
        // 8 symbols carry 5 bytes; a last group of 1, 3 or 6 symbols ends inside a byte
        guard ![1, 3, 6].contains(symbols.count % 8) else {
            throw .invalidSecret("the secret's \(symbols.count) base32 characters are no whole number of bytes: it was cut off")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(symbols.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            buffer = buffer << 5 | UInt32(symbol)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return bytes
    }

    /// Stands for `=` among the symbols' values.
    private static let padding: UInt8 = 0xff

    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): character - UInt8(ascii: "2") + 26
        case UInt8(ascii: "="): padding
        default: nil
        }
    }
}
