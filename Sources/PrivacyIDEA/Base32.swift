/// RFC 4648 base32 (the upper-case alphabet, `=` padding) as Python's `b32encode`/`b32decode`
/// write and read it: privacyIDEA's push signatures travel in it.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[(buffer >> bits) & 31])
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for anything `b32decode` would refuse: lower case, a stray character, padding that is
    /// missing or in the wrong place.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 8 == 0 else { return nil }
        let padding = characters.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard [0, 1, 3, 4, 6].contains(padding) else { return nil }
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in characters.dropLast(padding) {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = ((buffer << 5) | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        return out
    }
}
