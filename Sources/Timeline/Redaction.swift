import Foundation

/// What the timeline keeps of a body: JSON with its secrets taken out. Keys, signatures, PIN
/// proofs and OTPs are replaced whole; tokens and challenges are shortened to their first
/// characters, enough to tell two apart, too few to use. A JSON string inside a string (the
/// push's payload) is redacted the same way. Anything else is not kept.
///
/// The body is copied in one pass over its bytes, as it was sent (minus white space), rather
/// than parsed into objects and written again: the timeline sees every exchange, so this runs
/// for every hop of every login.
enum Redaction {
    static let redacted = "‹redacted›"
    /// Bodies longer than this are cut (the wire's bodies are a few kilobytes).
    static let maximumLength = 16 * 1024

    /// Key names (lower-cased) whose string values are secrets, whole.
    static func isSecret(_ key: String) -> Bool {
        let key = key.lowercased()
        return ["key", "signature", "pin", "otp", "secret", "proof", "password"].contains { key.contains($0) }
    }

    /// Key names whose values are shortened.
    static func isToken(_ key: String) -> Bool {
        let key = key.lowercased()
        return key.contains("token") || key.contains("challenge")
    }

    static func shorten(_ text: String) -> String {
        text.count <= 8 ? String(repeating: "•", count: text.count) : text.prefix(6) + "…"
    }

    /// A body as the timeline keeps it, and the top-level string fields it was asked for (read
    /// in the same pass: the session id of a redeem's answer, the message name of a send's).
    struct Kept: Equatable {
        var text: String?
        var fields: [String: String] = [:]
    }

    /// The body as the timeline shows it; nil for none.
    static func text(_ bytes: Data?) -> String? {
        keep(bytes, fields: []).text
    }

    static func keep(_ bytes: Data?, fields wanted: Set<String>) -> Kept {
        guard let bytes, !bytes.isEmpty else { return Kept() }
        var copier = Copier(input: Array(bytes), wanted: wanted)
        guard let text = copier.document() else { return Kept(text: "‹\(bytes.count) bytes that are not JSON, not kept›") }
        return Kept(text: text.count > maximumLength ? text.prefix(maximumLength) + "…" : text, fields: copier.fields)
    }

    /// A JSON copier that redacts as it goes; any departure from JSON ends it (nil).
    struct Copier {
        let input: [UInt8]
        let wanted: Set<String>
        var index = 0
        var output: [UInt8] = []
        var fields: [String: String] = [:]
        static let maximumDepth = 32

        init(input: [UInt8], wanted: Set<String>) {
            self.input = input
            self.wanted = wanted
            output.reserveCapacity(input.count)
        }

        mutating func document() -> String? {
            guard value(key: nil, depth: 0) else { return nil }
            skipSpace()
            guard index == input.count else { return nil }
            return String(decoding: output, as: UTF8.self)
        }

        mutating func skipSpace() {
            while index < input.count, [0x20, 0x09, 0x0A, 0x0D].contains(input[index]) { index += 1 }
        }

        mutating func value(key: String?, depth: Int) -> Bool {
            skipSpace()
            guard index < input.count, depth <= Self.maximumDepth else { return false }
            switch input[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(key: key, depth: depth)
            case UInt8(ascii: "\""):
                guard let (raw, text) = string() else { return false }
                if depth == 1, let key, wanted.contains(key) { fields[key] = text }
                write(string: raw, text, key: key)
                return true
            default: return scalar()
            }
        }

        mutating func object(depth: Int) -> Bool {
            items(closedBy: UInt8(ascii: "}")) { copier in
                copier.skipSpace()
                guard copier.index < copier.input.count, copier.input[copier.index] == UInt8(ascii: "\""),
                    let (raw, key) = copier.string()
                else { return false }
                copier.output.append(contentsOf: raw)
                copier.skipSpace()
                guard copier.index < copier.input.count, copier.input[copier.index] == UInt8(ascii: ":") else { return false }
                copier.index += 1
                copier.output.append(UInt8(ascii: ":"))
                return copier.value(key: key, depth: depth + 1)
            }
        }

        /// An array's items are redacted as its key's value would be (`"keys": ["…"]`).
        mutating func array(key: String?, depth: Int) -> Bool {
            items(closedBy: UInt8(ascii: "]")) { $0.value(key: key, depth: depth + 1) }
        }

        /// The items of the object or array whose opening is at `index`, copied with `item`, up
        /// to its `closing` byte.
        mutating func items(closedBy closing: UInt8, _ item: (inout Copier) -> Bool) -> Bool {
            output.append(input[index])
            index += 1
            skipSpace()
            if index < input.count, input[index] == closing {
                index += 1
                output.append(closing)
                return true
            }
            while true {
                guard item(&self) else { return false }
                skipSpace()
                guard index < input.count else { return false }
                let next = input[index]
                index += 1
                output.append(next)
                if next == closing { return true }
                guard next == UInt8(ascii: ",") else { return false }
            }
        }

        /// A string at `index`: its bytes as sent (quotes included) and its text.
        mutating func string() -> (ArraySlice<UInt8>, String)? {
            let start = index
            index += 1
            var escaped = false
            while index < input.count {
                let byte = input[index]
                index += 1
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    let raw = input[start..<index]
                    guard escaped else { return (raw, String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)) }
                    guard let text = try? JSONDecoder().decode(String.self, from: Data(raw)) else { return nil }
                    return (raw, text)
                } else if byte < 0x20 {
                    return nil
                }
            }
            return nil
        }

        mutating func write(string raw: ArraySlice<UInt8>, _ text: String, key: String?) {
            if let key, isSecret(key) { return append(quoted: redacted) }
            if let key, isToken(key) { return append(quoted: shorten(text)) }
            // a payload carried as JSON text
            if let first = text.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                var inner = Copier(input: Array(text.utf8), wanted: [])
                if let redactedInner = inner.document() { return append(quoted: redactedInner) }
            }
            output.append(contentsOf: raw)
        }

        mutating func append(quoted text: String) {
            output.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), byte])
                case 0x0A: output.append(contentsOf: Array("\\n".utf8))
                case 0x0D: output.append(contentsOf: Array("\\r".utf8))
                case 0x09: output.append(contentsOf: Array("\\t".utf8))
                case ..<0x20: output.append(contentsOf: Array(String(format: "\\u%04x", byte).utf8))
                default: output.append(byte)
                }
            }
            output.append(UInt8(ascii: "\""))
        }

        /// A number, true, false or null, copied as it is.
        mutating func scalar() -> Bool {
            let start = index
            while index < input.count, !",}] \t\n\r".utf8.contains(input[index]) { index += 1 }
            let token = input[start..<index]
            let literal = ["true", "false", "null"].contains { token.elementsEqual($0.utf8) }
            guard
                literal
                    || (token.first.map { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) } ?? false
                        && token.allSatisfy { (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) })
            else { return false }
            output.append(contentsOf: token)
            return true
        }
    }
}
