import Foundation
import StrictJSON
import WireJSON

/// What the timeline keeps of a body: JSON with its secrets taken out. Whatever stands under a
/// key, signature, PIN proof or OTP's name is replaced whole (a string, a number, an object or a
/// list alike: the timeline can be downloaded); tokens and challenges are shortened to their
/// first characters, enough to tell two apart, too few to use. A JSON string inside a string
/// (the push's payload) is redacted the same way. Anything else is not kept.
///
/// The body is copied token by token as `StrictJSON.Lexer` reads it, as it was sent (minus
/// white space), rather than parsed into objects and written again: the timeline sees every
/// exchange, so this runs for every hop of every login.
enum Redaction {
    static let redacted = "‹redacted›"
    /// Bodies longer than this are cut (the wire's bodies are a few kilobytes).
    static let maximumLength = 16 * 1024

    /// What a key's name makes of its value: secrets go whole, tokens are shortened.
    enum Role {
        case secret, token, plain

        /// Parts of key names (lower-cased) whose values are secrets, and tokens.
        static let secretParts = ["key", "signature", "pin", "otp", "secret", "proof", "password", "passphrase", "credential"]
        static let tokenParts = ["token", "challenge"]
        /// The parts by their first letter, so that a name is read once whatever the parts.
        static let partsByFirstByte: [[(part: [UInt8], role: Role)]] = {
            var table = Array(repeating: [(part: [UInt8], role: Role)](), count: 256)
            for (part, role) in secretParts.map({ ($0, Role.secret) }) + tokenParts.map({ ($0, Role.token) }) {
                table[Int(part.utf8.first ?? 0)].append((Array(part.utf8), role))
            }
            return table
        }()

        /// Read off the name's bytes: this runs for every key of every body, and Foundation's
        /// `contains` on strings allocated more than the rest of the redaction together. A name
        /// with other letters than ASCII is lower-cased by Unicode's rules first (the Kelvin
        /// sign is a K).
        init(_ key: String) {
            var name = key
            if !name.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) { name = name.lowercased() }
            self = name.withUTF8(Self.role(of:))
        }

        /// The role a name's parts give it, its ASCII capitals read as small letters.
        static func role(of name: UnsafeBufferPointer<UInt8>) -> Role {
            var role = Role.plain
            for start in name.indices {
                for (part, partRole) in partsByFirstByte[Int(lowered(name[start]))] where Self.name(name, at: start, has: part) {
                    if partRole == .secret { return .secret }
                    role = partRole
                }
            }
            return role
        }

        /// Whether `part`, whose first letter is the one at `start`, stands in `name` there.
        static func name(_ name: UnsafeBufferPointer<UInt8>, at start: Int, has part: [UInt8]) -> Bool {
            guard start + part.count <= name.count else { return false }
            var matched = 1
            while matched < part.count, lowered(name[start + matched]) == part[matched] { matched += 1 }
            return matched == part.count
        }

        static func lowered(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

        /// The role of a member named `key` of an object in this role: its name's, if it has
        /// one; else the object's (whatever is inside a token is shortened).
        func member(_ key: String) -> Role {
            let named = Role(key)
            return named == .plain ? self : named
        }
    }

    /// Counts no further than the ninth character: a token can be long.
    static func shorten(_ text: String) -> String {
        guard let ninth = text.index(text.startIndex, offsetBy: 8, limitedBy: text.endIndex), ninth < text.endIndex else {
            return String(repeating: "•", count: text.count)
        }
        return text.prefix(6) + "…"
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
        var copier = Copier(bytes, wanted: wanted)
        guard let text = try? copier.document() else {
            return Kept(text: form(bytes) ?? "‹\(bytes.count) bytes that are not JSON or a form, not kept›")
        }
        // no more bytes than the limit is no more characters: only a long copy's are counted
        let long = text.utf8.count > maximumLength && text.count > maximumLength
        return Kept(text: long ? text.prefix(maximumLength) + "…" : text, fields: copier.fields)
    }

    /// Copies a document token by token, redacting as it goes; what the lexer refuses ends it.
    struct Copier {
        /// An object or array being copied: the role of its values, and whether one is written.
        struct Open {
            let role: Role
            let isObject: Bool
            var isEmpty = true
        }

        var lexer: StrictJSON.Lexer
        let wanted: Set<String>
        var output: [UInt8] = []
        var fields: [String: String] = [:]
        var open: [Open] = []
        /// The role of the value after the last key, and the top-level field it is, if wanted.
        var memberRole = Role.plain
        var field: String?

        init(_ bytes: some Collection<UInt8>, wanted: Set<String>) {
            lexer = StrictJSON.Lexer(bytes)
            self.wanted = wanted
            output.reserveCapacity(lexer.bytes.count)
        }

        mutating func document() throws(StrictJSON.Problem) -> String {
            while let token = try lexer.next() { try copy(token) }
            return String(decoding: output, as: UTF8.self)
        }

        mutating func copy(_ token: StrictJSON.Token) throws(StrictJSON.Problem) {
            switch token {
            case .key(let name, let bytes):
                startItem()
                output.append(contentsOf: lexer.bytes[bytes])
                output.append(UInt8(ascii: ":"))
                memberRole = (open.last?.role ?? .plain).member(name)
                field = lexer.depth == 1 && wanted.contains(name) ? name : nil
            case .scalar(let kind, let bytes):
                let (role, field) = startValue()
                if role == .secret {
                    WireJSON.appendString(redacted, to: &output)
                } else {
                    try scalar(kind, at: bytes, role: role, field: field)
                }
            case .objectStart, .arrayStart:
                let (role, _) = startValue()
                if role == .secret {
                    WireJSON.appendString(redacted, to: &output)
                    try lexer.skipContainer()
                } else {
                    output.append(token == .objectStart ? UInt8(ascii: "{") : UInt8(ascii: "["))
                    open.append(Open(role: role, isObject: token == .objectStart))
                }
            case .objectEnd, .arrayEnd:
                open.removeLast()
                output.append(token == .objectEnd ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            }
        }

        /// A value begins: its role (its key's in an object, its list's in an array), and the
        /// top-level field it is, if wanted; in an array, after the comma it needs.
        mutating func startValue() -> (Role, field: String?) {
            defer { field = nil }
            guard let container = open.last else { return (.plain, nil) }
            if container.isObject { return (memberRole, field) }
            startItem()
            return (container.role, nil)
        }

        /// The comma before every item of an object or array but its first.
        mutating func startItem() {
            guard let last = open.indices.last else { return }
            if !open[last].isEmpty { output.append(UInt8(ascii: ",")) }
            open[last].isEmpty = false
        }

        /// A string, number or literal that is not a secret: a token's strings and numbers
        /// shortened, a JSON text in a plain string redacted in turn, the rest as sent.
        mutating func scalar(_ kind: StrictJSON.Kind, at bytes: Range<Int>, role: Role, field: String?) throws(StrictJSON.Problem) {
            if kind == .string, let field {
                fields[field] = try lexer.text(ofString: bytes)
            }
            switch (kind, role) {
            case (.string, .token):
                WireJSON.appendString(shorten(try lexer.text(ofString: bytes)), to: &output)
            case (.number, .token):
                WireJSON.appendString(shorten(String(decoding: lexer.bytes[bytes], as: UTF8.self)), to: &output)
            case (.string, _) where [UInt8(ascii: "{"), UInt8(ascii: "[")].contains(lexer.bytes[bytes.lowerBound + 1]):
                let text = try lexer.text(ofString: bytes)
                var inner = Copier(text.utf8, wanted: [])
                if let redactedInner = try? inner.document() {
                    WireJSON.appendString(redactedInner, to: &output)
                } else {
                    output.append(contentsOf: lexer.bytes[bytes])
                }
            default:
                output.append(contentsOf: lexer.bytes[bytes])
            }
        }
    }
}
