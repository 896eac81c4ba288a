import Foundation

/// Pure decoders: text in, `OutOfBandPayload` or an `OutOfBandError` out. No I/O, no state.
public enum OutOfBandDecoder {
    /// Longer input than this is refused before any parsing (a QR code holds under 3 KB).
    public static let maximumLength = 8 * 1024

    /// QR text: the payload JSON, base64url-encoded (padding optional) or as it is.
    public static func decode(qrText: String) throws(OutOfBandError) -> OutOfBandPayload {
        let text = qrText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .empty("QR text") }
        guard text.utf8.count <= maximumLength else { throw .tooLarge("QR text", limit: maximumLength) }
        if text.hasPrefix("{") { return try decode(json: Array(text.utf8)) }
        guard let bytes = Base64URL.decode(text) else {
            throw .malformed("the QR text is neither JSON nor base64url-encoded JSON")
        }
        return try decode(json: bytes)
    }

    /// What a camera reads off a QR code: the QR text itself, or a deep link or app link that
    /// carries it (a relying party may print its link as the code).
    public static func decode(scanned text: String) throws(OutOfBandError) -> OutOfBandPayload {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let scheme = trimmed.split(separator: ":", maxSplits: 1).first, trimmed.contains("://"),
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        {
            return try DeepLink.decode(trimmed)
        }
        return try decode(qrText: trimmed)
    }

    /// The payload JSON itself.
    public static func decode(json bytes: [UInt8]) throws(OutOfBandError) -> OutOfBandPayload {
        guard bytes.count <= maximumLength else { throw .tooLarge("payload", limit: maximumLength) }
        return try decode(root: try object(fromJSON: bytes, what: "the payload"))
    }

    /// The payload's fields, however they arrived (a QR code's JSON, a push's data map).
    static func decode(root: [String: Any]) throws(OutOfBandError) -> OutOfBandPayload {
        let contentType = try string(root, "nma_data_content_type")
        guard contentType == OutOfBandPayload.supportedContentType else { throw .unsupportedContentType(contentType) }
        let version = try string(root, "nma_data_version")
        guard version == OutOfBandPayload.supportedVersion else { throw .unsupportedVersion(version) }
        for key in root.keys where !["nma_data", "nma_data_content_type", "nma_data_version"].contains(key) {
            throw .invalidField(key, "is not part of an out-of-band payload")
        }

        // nma_data is an object in a QR code and JSON text inside a push's string-only data map.
        let data: [String: Any]
        switch root["nma_data"] {
        case nil: throw .missingField("nma_data")
        case let nested as [String: Any]: data = nested
        case let text as String: data = try object(fromJSON: Array(text.utf8), what: "nma_data")
        default: throw .invalidField("nma_data", "must be an object or JSON text")
        }

        let token = try string(data, "token", in: "nma_data")
        guard (1...512).contains(token.utf8.count),
            token.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { throw .invalidField("nma_data.token", "must be 1 to 512 printable ASCII characters without spaces") }

        let redeemURL = try redeemURL(try string(data, "redeem_url", in: "nma_data"))
        var attributes: [String: String] = [:]
        for (key, value) in data where key != "token" && key != "redeem_url" {
            guard let text = value as? String else { throw .invalidField("nma_data.\(key)", "must be a string") }
            attributes[key] = text
        }
        return OutOfBandPayload(
            redeemData: .init(token: token, redeemURL: redeemURL), attributes: attributes,
            contentType: contentType, version: version)
    }

    static func object(fromJSON bytes: [UInt8], what: String) throws(OutOfBandError) -> [String: Any] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: []) else {
            throw .malformed("\(what) is not valid JSON")
        }
        guard let object = value as? [String: Any] else { throw .malformed("\(what) must be a JSON object") }
        return object
    }

    private static func string(_ object: [String: Any], _ key: String, in parent: String? = nil) throws(OutOfBandError) -> String {
        let name = parent.map { "\($0).\(key)" } ?? key
        guard let value = object[key] else { throw .missingField(name) }
        guard let text = value as? String else { throw .invalidField(name, "must be a string") }
        return text
    }

    /// An absolute http(s) URL with a host and nothing that could disguise where it points.
    private static func redeemURL(_ text: String) throws(OutOfBandError) -> URL {
        let field = "nma_data.redeem_url"
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }),
            let components = URLComponents(string: text), let url = components.url
        else {
            throw .invalidField(field, "is not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidField(field, "must be an http or https URL")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidField(field, "has no host") }
        guard components.user == nil, components.password == nil else {
            throw .invalidField(field, "must not carry a user name or password")
        }
        guard components.fragment == nil else { throw .invalidField(field, "must not have a fragment") }
        return url
    }
}
