/// Crockford's base32 (https://www.crockford.com/base32.html): digits and letters without
/// I, L, O and U, so a code read aloud or typed is hard to get wrong. Decoding is lenient as
/// Crockford says (any case, O read as 0, I and L as 1, hyphens and spaces ignored) and strict
/// about everything else.
public enum Crockford32 {
    public static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// `value`'s low `5 × length` bits as `length` symbols, most significant first.
    public static func encode(_ value: UInt64, length: Int) -> String {
        precondition((1...12).contains(length), "at most 12 symbols (60 bits) fit a UInt64 here")
        var symbols = [UInt8](repeating: 0, count: length)
        var rest = value
        for index in symbols.indices.reversed() {
            symbols[index] = alphabet[Int(rest & 31)]
            rest >>= 5
        }
        return String(decoding: symbols, as: UTF8.self)
    }

    /// The value of exactly `length` symbols, read leniently.
    public static func decode(_ text: String, length: Int) throws(CrockfordError) -> UInt64 {
        precondition((1...12).contains(length), "at most 12 symbols (60 bits) fit a UInt64 here")
        var value: UInt64 = 0
        var count = 0
        for (position, character) in text.enumerated() where character != "-" && character != " " {
            guard let symbol = symbolValue(character) else { throw .invalidCharacter(character, position: position + 1) }
            count += 1
            if count <= length { value = value << 5 | UInt64(symbol) }
        }
        guard count == length else { throw .wrongLength(expected: length, got: count) }
        return value
    }

    /// A symbol's value, with Crockford's readings of look-alikes; nil for anything else (U too).
    static func symbolValue(_ character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "o"), UInt8(ascii: "O"): return 0
        case UInt8(ascii: "i"), UInt8(ascii: "I"), UInt8(ascii: "l"), UInt8(ascii: "L"): return 1
        default:
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(ascii) ? ascii - 32 : ascii
            return alphabet.firstIndex(of: upper).map(UInt8.init)
        }
    }
}

/// Why a text is not a Crockford base32 value of the expected length.
public enum CrockfordError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidCharacter(Character, position: Int)
    case wrongLength(expected: Int, got: Int)

    public var description: String {
        switch self {
        case .invalidCharacter(let character, let position):
            "\(Self.shown(character)) at position \(position) is not a Crockford base32 character (0-9 and A-Z without U; I, L and O are read as 1, 1 and 0)"
        case .wrongLength(let expected, let got):
            "\(expected) characters are needed (hyphens and spaces aside), got \(got)"
        }
    }

    /// A character as a message can show it: quoted, or by code point when it is invisible.
    private static func shown(_ character: Character) -> String {
        let visible = character.unicodeScalars.allSatisfy {
            !$0.properties.isWhitespace && $0.properties.generalCategory != .control
                && $0.properties.generalCategory != .format
        }
        return visible
            ? "'\(character)'" : character.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
    }
}
