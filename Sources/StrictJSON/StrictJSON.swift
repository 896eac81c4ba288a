/// Reads JSON exactly as RFC 8259 writes it, which Foundation's parsers do not insist on: a key
/// twice in one object (which value counts?), a trailing comma, a comment, nesting past a
/// limit, a control character in a string are all refused with where and what. What it returns
/// lets a caller refuse what its type does not know: every key path with the kind of its value.
public enum StrictJSON {
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// Why the bytes are not strict JSON, in words a person can act on.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Deeper than this is no request anyone means to send.
    public static let maximumDepth = 32

    /// Every value's path (`message.data.nma_data`, `penalties[]`; `` for the root) and kind.
    public static func scan(_ bytes: some Collection<UInt8>) throws(Problem) -> [String: Kind] {
        var reader = Reader(bytes: Array(bytes))
        reader.skipSpace()
        try reader.value(path: "", depth: 0)
        reader.skipSpace()
        guard reader.atEnd else { throw reader.problem("there is more after the JSON value") }
        return reader.kinds
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var kinds: [String: Kind] = [:]

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { atEnd ? nil : bytes[index] }

        func problem(_ what: String) -> Problem { Problem(message: "\(what) (at byte \(index))") }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ literal: String) throws(Problem) {
            for byte in literal.utf8 {
                guard current == byte else { throw problem("expected '\(literal)'") }
                index += 1
            }
        }

        mutating func value(path: String, depth: Int) throws(Problem) {
            guard depth <= maximumDepth else { throw problem("the JSON nests deeper than \(maximumDepth) levels") }
            switch current {
            case UInt8(ascii: "{"): try object(path: path, depth: depth)
            case UInt8(ascii: "["): try array(path: path, depth: depth)
            case UInt8(ascii: "\""):
                _ = try string(keeping: false)
                record(path, .string)
            case UInt8(ascii: "t"):
                try expect("true")
                record(path, .bool)
            case UInt8(ascii: "f"):
                try expect("false")
                record(path, .bool)
            case UInt8(ascii: "n"):
                try expect("null")
                record(path, .null)
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                try number()
                record(path, .number)
            case nil: throw problem("the JSON ends where a value should be")
            default: throw problem("expected a JSON value")
            }
        }

        /// An array's elements share one path; a path's kind is the last one seen.
        mutating func record(_ path: String, _ kind: Kind) { kinds[path] = kind }

        mutating func object(path: String, depth: Int) throws(Problem) {
            index += 1
            record(path, .object)
            var seen: Set<String> = []
            skipSpace()
            if current == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else {
                    throw problem(current == UInt8(ascii: "}") ? "a trailing comma before '}'" : "expected a key in quotes")
                }
                let key = try string(keeping: true)
                guard seen.insert(key).inserted else {
                    throw Problem(message: "the key '\(key)' appears twice in \(path.isEmpty ? "the body" : "'\(path)'")")
                }
                skipSpace()
                guard current == UInt8(ascii: ":") else { throw problem("expected ':' after the key '\(key)'") }
                index += 1
                skipSpace()
                try value(path: path.isEmpty ? key : "\(path).\(key)", depth: depth + 1)
                skipSpace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return
                default: throw problem("expected ',' or '}'")
                }
            }
        }

        mutating func array(path: String, depth: Int) throws(Problem) {
            index += 1
            record(path, .array)
            skipSpace()
            if current == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipSpace()
                if current == UInt8(ascii: "]") { throw problem("a trailing comma before ']'") }
                try value(path: path + "[]", depth: depth + 1)
                skipSpace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return
                default: throw problem("expected ',' or ']'")
                }
            }
        }

        /// Checks a string; returns its text with its escapes resolved when `keeping` (a key: keys
        /// are compared by what they say), or "" (a value, whose text nobody reads here). The
        /// text between escapes is checked as one run, without copying a value's bytes.
        mutating func string(keeping: Bool) throws(Problem) -> String {
            index += 1
            var text = ""
            var run = index
            func endRun(at end: Int) throws(Problem) {
                let runBytes = bytes[run..<end]
                if keeping {
                    guard let part = String(validating: runBytes, as: UTF8.self) else { throw problem("a string is not valid UTF-8") }
                    text += part
                } else if !runBytes.allSatisfy({ $0 < 0x80 }), String(validating: runBytes, as: UTF8.self) == nil {
                    throw problem("a string is not valid UTF-8")
                }
            }
            while true {
                guard let byte = current else { throw problem("a string is not closed") }
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    try endRun(at: index - 1)
                    return text
                case UInt8(ascii: "\\"):
                    try endRun(at: index - 1)
                    let scalar = try escape()
                    if keeping { text.unicodeScalars.append(scalar) }
                    run = index
                case 0x00..<0x20:
                    throw problem("a control character inside a string must be escaped")
                default:
                    continue
                }
            }
        }

        mutating func escape() throws(Problem) -> Unicode.Scalar {
            guard let byte = current else { throw problem("a string is not closed") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{8}"
            case UInt8(ascii: "f"): return "\u{C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let high = try hex4()
                guard (0xD800..<0xDC00).contains(high) else {
                    guard let scalar = Unicode.Scalar(high) else { throw problem("a lone low surrogate in a \\u escape") }
                    return scalar
                }
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw problem("a lone high surrogate in a \\u escape")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else {
                    throw problem("a high surrogate without its low half")
                }
                return scalar
            default: throw problem("an unknown escape")
            }
        }

        mutating func hex4() throws(Problem) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = current, let digit = Self.hexValue(byte) else { throw problem("a \\u escape needs four hex digits") }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        mutating func number() throws(Problem) {
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits() > 0 else { throw problem("a number needs digits") }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw problem("a number needs digits after '.'") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw problem("a number needs digits in its exponent") }
            }
        }

        mutating func digits() -> Int {
            let start = index
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            return index - start
        }
    }
}
