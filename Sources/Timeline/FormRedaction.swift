import Foundation

/// privacyIDEA's requests are forms and queries, not JSON (docs/privacyidea.md): their fields are
/// redacted by the same names as JSON members are (`pubkey` and `signature` whole, `fbtoken`
/// shortened), in a request's body and in its URL's query alike.
extension Redaction {
    /// A form body (`name=value&…`, percent-encoded) as the timeline keeps it; nil when the bytes
    /// are not one.
    static func form(_ bytes: Data) -> String? {
        guard bytes.count <= maximumLength, let text = String(data: bytes, encoding: .utf8),
            text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), !text.hasPrefix("{"), !text.hasPrefix("[")
        else { return nil }
        return redactedPairs(text)
    }

    /// A URL with its query's secret fields taken out.
    static func url(_ text: String) -> String {
        guard let question = text.firstIndex(of: "?"), let pairs = redactedPairs(String(text[text.index(after: question)...])) else {
            return text
        }
        return text[...question] + pairs
    }

    /// Each `name=value` with its value redacted by its name's role; nil for text that is not pairs.
    private static func redactedPairs(_ text: String) -> String? {
        var kept: [String] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "="), let name = String(pair[..<equals]).removingPercentEncoding, !name.isEmpty else {
                return nil
            }
            let value = pair[pair.index(after: equals)...]
            switch Role(name) {
            case .secret: kept.append(pair[...equals] + redacted)
            case .token: kept.append(pair[...equals] + shorten(String(value)))
            case .plain: kept.append(String(pair))
            }
        }
        return kept.joined(separator: "&")
    }
}
