/// A phone number in E.164's form, `+` and 8 to 15 digits without a leading zero: how a phone is
/// addressed by SMS gateways, and how it is kept and compared.
public struct PhoneNumber: Hashable, Sendable, CustomStringConvertible, Codable {
    /// `+447700900123`.
    public let e164: String

    public var description: String { e164 }

    /// A number as people and senders write it: `+44 7700 900123`, `(+44) 7700-900123`,
    /// `00447700900123`, or its digits alone with the country code. Spaces, hyphens, dots and
    /// brackets are dropped; anything else is refused with what is wrong.
    public init(reading text: String) throws(PhoneNumberError) {
        var digits = ""
        var plus = false
        for character in text {
            switch character {
            case " ", "-", ".", "(", ")", "\u{00A0}": continue
            case "+" where digits.isEmpty && !plus: plus = true
            case "0"..."9": digits.append(character)
            default: throw .notANumber(Self.shown(text))
            }
        }
        if !plus, digits.hasPrefix("00") { digits.removeFirst(2) }
        guard let first = digits.first, first != "0", (Self.minimumDigits...Self.maximumDigits).contains(digits.count) else {
            throw .notANumber(Self.shown(text))
        }
        e164 = "+" + digits
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try PhoneNumber(reading: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(e164)
    }

    /// E.164 allows 15 digits; fewer than 8 is no mobile number anywhere.
    public static let minimumDigits = 8
    public static let maximumDigits = 15

    /// The numbers AuthPhone hands out: the UK's `+44 7700 900000`–`900999`, which Ofcom keeps
    /// for fiction, so that no text meant for a simulated phone can reach a real one; past its
    /// first thousand phones, the rest of `+44 7700 9xxxxx`.
    public static func fictional(_ index: Int) -> PhoneNumber {
        let tail = String(index % fictionalRange)
        let padded = String(repeating: "0", count: 5 - tail.count) + tail
        return PhoneNumber(checked: "+4477009" + padded)
    }

    private init(checked e164: String) { self.e164 = e164 }

    /// How many numbers the fictional range holds; `fictional(_:)` wraps past its end.
    public static let fictionalRange = 100_000

    /// A refused number is quoted, cut short: it came from outside.
    private static func shown(_ text: String) -> String {
        let readable = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }))
        return readable.count > 40 ? String(readable.prefix(40)) + "…" : readable
    }
}

public enum PhoneNumberError: Error, Equatable, Sendable, CustomStringConvertible {
    case notANumber(String)

    public var description: String {
        switch self {
        case .notANumber(let text):
            "'\(text)' is not a phone number in E.164 form: '+', the country code and the number, 8 to 15 digits in all (+447700900123)"
        }
    }
}
