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

    /// What a key's name makes of its string values: secrets go whole, tokens are shortened.
    enum Role {
        case secret, token, plain

        /// Parts of key names (lower-cased) whose values are secrets, and tokens.
        static let secretParts = ["key", "signature", "pin", "otp", "secret", "proof", "password"].map { Array($0.utf8) }
        static let tokenParts = ["token", "challenge"].map { Array($0.utf8) }

        /// Read off the name's bytes: this runs for every key of every body, and Foundation's
        /// `contains` on strings allocated more than the rest of the redaction together.
        init(_ key: String) {
            var key = key
            self = key.withUTF8 { name in
                Self.secretParts.contains { Self.name(name, has: $0) }
                    ? .secret : Self.tokenParts.contains { Self.name(name, has: $0) } ? .token : .plain
            }
        }

        /// Whether `name`, lower-cased, holds `part` (ASCII); a name with other letters is
        /// lower-cased by Unicode's rules first (the Kelvin sign is a K).
        static func name(_ name: UnsafeBufferPointer<UInt8>, has part: [UInt8]) -> Bool {
            guard name.allSatisfy({ $0 < 0x80 }) else {
                return Array(String(decoding: name, as: UTF8.self).lowercased().utf8).firstRange(of: part) != nil
            }
            guard name.count >= part.count else { return false }
            return (0...(name.count - part.count)).contains { start in
                part.indices.allSatisfy { offset in
                    let byte = name[start + offset]
                    return ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) == part[offset]
                }
            }
        }
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
            guard value(role: .plain, name: nil, depth: 0) else { return nil }
            skipSpace()
            guard index == input.count else { return nil }
            return String(decoding: output, as: UTF8.self)
        }

        mutating func skipSpace() {
            while index < input.count, [0x20, 0x09, 0x0A, 0x0D].contains(input[index]) { index += 1 }
        }

        /// A value under a key of `role` (named `name`, when it is a top-level field).
        mutating func value(role: Role, name: String?, depth: Int) -> Bool {
            skipSpace()
            guard index < input.count, depth <= Self.maximumDepth else { return false }
            switch input[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(role: role, depth: depth)
            case UInt8(ascii: "\""):
                guard let raw = string() else { return false }
                if depth == 1, let name, wanted.contains(name) { fields[name] = Self.text(raw) }
                return write(string: raw, role: role)
            default: return scalar()
            }
        }

        mutating func object(depth: Int) -> Bool {
            items(closedBy: UInt8(ascii: "}")) { copier in
                copier.skipSpace()
                guard copier.index < copier.input.count, copier.input[copier.index] == UInt8(ascii: "\""),
                    let raw = copier.string(), let key = Self.text(raw)
                else { return false }
                copier.output.append(contentsOf: raw)
                copier.skipSpace()
                guard copier.index < copier.input.count, copier.input[copier.index] == UInt8(ascii: ":") else { return false }
                copier.index += 1
                copier.output.append(UInt8(ascii: ":"))
                return copier.value(role: Role(key), name: depth == 0 ? key : nil, depth: depth + 1)
            }
        }

        /// An array's items are redacted as its key's value would be (`"keys": ["…"]`).
        mutating func array(role: Role, depth: Int) -> Bool {
            items(closedBy: UInt8(ascii: "]")) { $0.value(role: role, name: nil, depth: depth + 1) }
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

        /// A string at `index`: its bytes as sent, quotes included. Its text is read only where
        /// it is needed (`text(_:)`): most values are copied as they are.
        mutating func string() -> ArraySlice<UInt8>? {
            let start = index
            index += 1
            while index < input.count {
                let byte = input[index]
                index += 1
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    return input[start..<index]
                } else if byte < 0x20 {
                    return nil
                }
            }
            return nil
        }

        /// A string's text; nil for an escape JSON does not have.
        static func text(_ raw: ArraySlice<UInt8>) -> String? {
            guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
            return try? JSONDecoder().decode(String.self, from: Data(raw))
        }

        mutating func write(string raw: ArraySlice<UInt8>, role: Role) -> Bool {
            switch role {
            case .secret:
                append(quoted: redacted)
            case .token:
                guard let text = Self.text(raw) else { return false }
                append(quoted: shorten(text))
            case .plain:
                // a payload carried as JSON text
                let first = raw.dropFirst().first
                if first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let text = Self.text(raw) {
                    var inner = Copier(input: Array(text.utf8), wanted: [])
                    if let redactedInner = inner.document() {
                        append(quoted: redactedInner)
                        return true
                    }
                }
                // an escape JSON does not have makes the body not JSON
                guard !raw.contains(UInt8(ascii: "\\")) || Self.text(raw) != nil else { return false }
                output.append(contentsOf: raw)
            }
            return true
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
