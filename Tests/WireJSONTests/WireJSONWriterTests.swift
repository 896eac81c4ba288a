import Foundation
import TestDoubles
import Testing
import WireJSON

/// `WireJSON.bytes` must write exactly what Foundation's encoder (`WireJSON.encoder()`) writes:
/// every party reads the same bytes whichever wrote them, and the tests' pinned bodies hold.
struct WireJSONWriterTests {
    /// Thousands of random values of every shape, against Foundation's output byte for byte.
    @Test func randomValuesAreWrittenAsFoundationWritesThem() throws {
        var random = SplitMix(seed: 0x5EED)
        for round in 0..<3000 {
            guard expectSame(Sample.random(&random, depth: 0), "round \(round)") else { return }
        }
    }

    @Test(arguments: [
        "", "plain", "quote \" backslash \\ slash /", "tab\tnewline\nreturn\rback\u{8}feed\u{C}", "\u{0}\u{1}\u{1F}\u{7F}",
        "é 😀 \u{2028} ÿ", "</script>",
    ])
    func stringsAreEscapedAsFoundationEscapesThem(_ text: String) throws {
        expectSame([text: text])
    }

    @Test(arguments: [0, -0.0, 1, 1.5, -2.25, 0.1, 1e16, 1e20, 1e-7, 123_456_789.125, 5e-324, Double.greatestFiniteMagnitude])
    func numbersAreWrittenAsFoundationWritesThem(_ number: Double) throws {
        expectSame([number])
        expectSame(Float(number))
    }

    @Test(arguments: [0, 1, -1, 1.999, -0.5, 1_764_028_800.75, -62_135_596_800, 253_402_300_799])
    func datesAreWrittenToTheSecondInUTC(_ seconds: Double) throws {
        expectSame(["at": Date(timeIntervalSince1970: seconds)])
    }

    /// What the writer leaves to Foundation still comes out as Foundation writes it, or fails as it does.
    @Test func whatTheWriterDoesNotTakeOnIsLeftToFoundation() throws {
        expectSame(Nested(inner: ["b": 2, "a": 1]))
        expectSame([Decimal(string: "12.50")!])
        expectSame(Sample.nothing)
        expectSame(["far": Date(timeIntervalSince1970: 1e300)])
        expectSame(Forgiving())
        #expect(throws: EncodingError.self) { try WireJSON.bytes([Double.nan]) }
    }

    /// A value that writes into its parent's encoder (a wrapper) merges its keys into one object.
    @Test func aWrapperWritingIntoTheSameEncoderMakesOneObject() throws {
        let wrapped = Sample.wrapped(.object([("z", .int(1)), ("a", .object([]))]), extra: "m")
        #expect(try WireJSON.string(wrapped) == #"{"a":{},"m":true,"z":1}"#)
        expectSame(wrapped)
    }

    /// The same bytes as Foundation's encoder, or an error where it gives one.
    @discardableResult
    func expectSame(_ value: some Encodable, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let expected = Result { Array(try WireJSON.encoder().encode(value)) }
        let written = Result { try WireJSON.bytes(value) }
        switch (expected, written) {
        case (.success(let expected), .success(let written)):
            #expect(
                String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(comment)",
                sourceLocation: sourceLocation)
            return written == expected
        case (.failure, .failure): return true
        default:
            Issue.record("Foundation: \(expected); WireJSON.bytes: \(written) \(comment)", sourceLocation: sourceLocation)
            return false
        }
    }
}

/// A JSON value of any shape, written through the Codable containers as a type would.
indirect enum Sample: Encodable {
    case string(String), int(Int), double(Double), bool(Bool), null, date(Date), data(Data), url(URL)
    case array([Sample])
    /// Members in the order given, duplicates included: the writer sorts, the last one wins.
    case object([(String, Sample)])
    /// Writes nothing at all: JSON's empty object.
    case nothing
    /// Writes into the same encoder as its parent, adding a key of its own.
    case wrapped(Sample, extra: String)
    case optionalNone

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text): try text.encode(to: encoder)
        case .int(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .double(let number): try number.encode(to: encoder)
        case .bool(let flag): try flag.encode(to: encoder)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .date(let date):
            var container = encoder.singleValueContainer()
            try container.encode(date)
        case .data(let data):
            var container = encoder.singleValueContainer()
            try container.encode(data)
        case .url(let url):
            var container = encoder.singleValueContainer()
            try container.encode(url)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                switch element {
                case .string(let text): try container.encode(text)
                case .int(let number): try container.encode(number)
                case .null: try container.encodeNil()
                default: try container.encode(element)
                }
            }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, member) in members {
                switch member {
                case .string(let text): try container.encode(text, forKey: Key(stringValue: key))
                case .int(let number): try container.encode(number, forKey: Key(stringValue: key))
                case .bool(let flag): try container.encode(flag, forKey: Key(stringValue: key))
                case .double(let number): try container.encode(number, forKey: Key(stringValue: key))
                case .null: try container.encodeNil(forKey: Key(stringValue: key))
                case .optionalNone: try container.encodeIfPresent(String?.none, forKey: Key(stringValue: key))
                default: try container.encode(member, forKey: Key(stringValue: key))
                }
            }
        case .nothing: break
        case .wrapped(let inner, let extra):
            try inner.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(true, forKey: Key(stringValue: extra))
        case .optionalNone:
            try String?.none.encode(to: encoder)
        }
    }

    static let texts = ["a", "B", "ab", "a-b", "Z", "é", "😀", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "\u{7F}", " ", "\u{2028}", "id", "type"]
    static let numbers = [0, -0.0, 1, 1.5, -2.25, 0.1, 1e16, 1e20, 1e-7, 123_456_789.125, 3.0e-5]

    static func random(_ random: inout SplitMix, depth: Int) -> Sample {
        func text() -> String { (0..<Int(random.next() % 4)).map { _ in texts[Int(random.next() % UInt64(texts.count))] }.joined() }
        let leaf = depth >= 4
        switch random.next() % (leaf ? 9 : 13) {
        case 0: return .string(text())
        case 1: return .int(Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 64))
        case 2: return .double(numbers[Int(random.next() % UInt64(numbers.count))])
        case 3: return .bool(random.next() % 2 == 0)
        case 4: return .null
        case 5: return .date(Date(timeIntervalSince1970: Double(Int64(random.next() % 5_000_000_000) - 1_000_000_000) + 0.25))
        case 6: return .data(Data((0..<Int(random.next() % 9)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 7:
            return .url(
                URL(
                    string:
                        "https://h.example/p/\(random.next() % 100)?q=\(text().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")!)
        case 8: return .optionalNone
        case 9: return .array((0..<Int(random.next() % 5)).map { _ in Sample.random(&random, depth: depth + 1) })
        case 10: return .nothing
        case 11: return .wrapped(.object([(text(), .int(1))]), extra: text())
        default: return .object((0..<Int(random.next() % 6)).map { _ in (text(), Sample.random(&random, depth: depth + 1)) })
        }
    }
}

/// A value that catches its part's error and writes on: what the part wrote before failing
/// must not stay in the output.
struct Forgiving: Encodable {
    struct Failing: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Sample.Key.self)
            try container.encode("written", forKey: Sample.Key(stringValue: "half"))
            throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "fails halfway"))
        }
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try? container.encode(Failing())
        try container.encode(1)
    }
}

/// A nested keyed container, which the writer leaves to Foundation.
struct Nested: Encodable {
    let inner: [String: Int]
    enum Keys: String, CodingKey { case inner, outer }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var outer = container.nestedContainer(keyedBy: Sample.Key.self, forKey: .outer)
        for (key, value) in inner { try outer.encode(value, forKey: Sample.Key(stringValue: key)) }
        try container.encode(inner, forKey: .inner)
    }
}
