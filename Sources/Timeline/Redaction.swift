import Foundation

/// What the timeline keeps of a body: JSON with its secrets taken out. Keys, signatures, PIN
/// proofs and OTPs are replaced whole; tokens and challenges are shortened to their first
/// characters, enough to tell two apart, too few to use. A JSON string inside a string (the
/// push's payload) is redacted the same way. Anything else is not kept.
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

    /// The body as the timeline shows it; nil for none.
    static func text(_ bytes: Data?) -> String? {
        guard let bytes, !bytes.isEmpty else { return nil }
        guard let value = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) else {
            return "‹\(bytes.count) bytes that are not JSON, not kept›"
        }
        return serialize(redact(value))
    }

    static func redact(_ value: Any, key: String? = nil) -> Any {
        switch value {
        case let object as [String: Any]:
            return object.reduce(into: [String: Any]()) { $0[$1.key] = redact($1.value, key: $1.key) }
        case let array as [Any]:
            return array.map { redact($0, key: key) }
        case let string as String:
            if let key, isSecret(key) { return redacted }
            if let key, isToken(key) { return shorten(string) }
            // a payload carried as JSON text
            if let first = string.first, first == "{" || first == "[",
                let inner = try? JSONSerialization.jsonObject(with: Data(string.utf8))
            {
                return serialize(redact(inner))
            }
            return string
        default:
            return value
        }
    }

    static func serialize(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return redacted
        }
        let text = String(decoding: data, as: UTF8.self)
        return text.count > maximumLength ? text.prefix(maximumLength) + "…" : text
    }
}
