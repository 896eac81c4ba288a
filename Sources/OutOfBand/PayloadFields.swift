import Foundation
import WireJSON

/// The payload as a QR code's JSON holds it, read in the order that tells a sender most: which
/// kind of payload it is (a phone that does not take it says so, whatever else is wrong), then
/// whether it holds anything else, then what it carries.
struct PayloadFields: Decodable {
    let payload: OutOfBandPayload

    private enum Field: String, CodingKey {
        case nmaData = "nma_data"
        case contentType = "nma_data_content_type"
        case version = "nma_data_version"
    }

    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: Field.self)
        let contentType = try OutOfBandPayload.supported(contentType: fields.decode(String.self, forKey: .contentType))
        let version = try OutOfBandPayload.supported(version: fields.decode(String.self, forKey: .version))
        let names = try decoder.container(keyedBy: WireJSON.MemberName.self).allKeys.map(\.stringValue)
        if let stranger = names.filter({ Field(rawValue: $0) == nil }).min() {
            throw OutOfBandError.invalidField(stranger, "is not part of an out-of-band payload")
        }
        payload = try fields.decode(NMAData.self, forKey: .nmaData).payload(contentType: contentType, version: version)
    }
}

/// `nma_data`: an object in a QR code, JSON text inside a push's string-only data map. Its token
/// and where to redeem it are checked as they are read; every other member is an attribute, a
/// string too.
struct NMAData: Decodable {
    let redeemData: OutOfBandPayload.RedeemData
    let attributes: [String: String]

    private enum Field: String, CodingKey {
        case token
        case redeemURL = "redeem_url"
    }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = try OutOfBandDecoder.decode(NMAData.self, fromJSON: Array(text.utf8), what: "nma_data", under: "nma_data")
            return
        }
        guard let fields = try? decoder.container(keyedBy: Field.self) else {
            throw OutOfBandError.invalidField("nma_data", "must be an object or JSON text")
        }
        let token = try fields.decode(String.self, forKey: .token)
        guard (1...512).contains(token.utf8.count),
            token.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { throw OutOfBandError.invalidField("nma_data.token", "must be 1 to 512 printable ASCII characters without spaces") }
        let redeemURL = try Self.redeemURL(fields.decode(String.self, forKey: .redeemURL))
        redeemData = .init(token: token, redeemURL: redeemURL)
        attributes = try decoder.singleValueContainer().decode([String: String].self).filter { Field(rawValue: $0.key) == nil }
    }

    /// The payload, if the forms the phone writes of it fit what it reads: JSON text grows a
    /// third as QR text, so a long text that reads may not read again once encoded.
    func payload(contentType: String, version: String) throws(OutOfBandError) -> OutOfBandPayload {
        let payload = OutOfBandPayload(redeemData: redeemData, attributes: attributes, contentType: contentType, version: version)
        guard payload.json.utf8.count <= OutOfBandPayload.maximumJSONLength else {
            throw .tooLarge("payload, written as minified JSON,", limit: OutOfBandPayload.maximumJSONLength)
        }
        return payload
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

extension OutOfBandPayload {
    /// The content type, if the phone takes it; else the refusal nextAuth numbers 33.
    static func supported(contentType: String) throws(OutOfBandError) -> String {
        guard contentType == supportedContentType else { throw .unsupportedContentType(contentType) }
        return contentType
    }

    /// The version, if the phone takes it; else the refusal nextAuth numbers 33.
    static func supported(version: String) throws(OutOfBandError) -> String {
        guard version == supportedVersion else { throw .unsupportedVersion(version) }
        return version
    }
}
