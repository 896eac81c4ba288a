extension StrictJSON {
    /// The bytes of a document and where reading stands: white space, strings, numbers and
    /// literals, each checked as RFC 8259 writes it. `Lexer` puts them together.
    struct Cursor {
        let bytes: [UInt8]
        var index: Int

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

        /// Checks the string that starts at `index`; returns its text with its escapes resolved
        /// when `keeping` (a key: keys are compared by what they say), or "" (a value, whose text
        /// is read only if asked for). The text between escapes is checked as one run, without
        /// copying a value's bytes, and only a run that is not all ASCII needs checking.
        mutating func string(keeping: Bool) throws(Problem) -> String {
            index += 1
            // a kept string's bytes with its escapes resolved, once it has an escape
            var unescaped: [UInt8] = []
            var escaped = false
            while true {
                let run = index
                // up to the next quote, backslash or control character; every byte's bits or-ed
                let (end, bits) = bytes.withUnsafeBufferPointer { buffer in
                    var end = run
                    var bits: UInt8 = 0
                    while end < buffer.count {
                        let byte = buffer[end]
                        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                        bits |= byte
                        end += 1
                    }
                    return (end, bits)
                }
                index = end
                guard let stop = current else { throw problem("a string is not closed") }
                index += 1
                // a control character is refused where it stands, before the run it ends is checked
                if stop < 0x20 { throw problem("a control character inside a string must be escaped") }
                let runBytes = bytes[run..<end]
                if bits >= 0x80, String(validating: runBytes, as: UTF8.self) == nil { throw problem("a string is not valid UTF-8") }
                if stop == UInt8(ascii: "\"") {
                    guard keeping else { return "" }
                    guard escaped else { return String(decoding: runBytes, as: UTF8.self) }
                    unescaped.append(contentsOf: runBytes)
                    return String(decoding: unescaped, as: UTF8.self)
                }
                let scalar = try escape()
                if keeping {
                    escaped = true
                    unescaped.append(contentsOf: runBytes)
                    UTF8.encode(scalar) { unescaped.append($0) }
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
