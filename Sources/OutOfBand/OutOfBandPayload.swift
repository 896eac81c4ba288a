import Foundation
import WireJSON

/// A dispatch payload in the Nevis out-of-band shape: where to redeem which token.
/// It carries no session data itself; the phone learns the operation by redeeming the token.
public struct OutOfBandPayload: Equatable, Sendable {
    /// Only plain JSON is supported; `application/jose` (encrypted) is recognised and refused.
    public static let supportedContentType = "application/json"
    public static let supportedVersion = "1"
    /// A longer payload is refused however it comes: its QR text (a third longer) and its deep
    /// link must fit the `OutOfBandDecoder.maximumLength` the phone reads.
    public static let maximumJSONLength = 6000

    public struct RedeemData: Equatable, Sendable {
        public let token: String
        public let redeemURL: URL

        public init(token: String, redeemURL: URL) {
            self.token = token
            self.redeemURL = redeemURL
        }
    }

    public let contentType: String
    public let version: String
    public let redeemData: RedeemData
    /// Free-form string attributes that travel with the token (Nevis' `attributeName` and alike).
    public let attributes: [String: String]

    public init(
        redeemData: RedeemData, attributes: [String: String] = [:],
        contentType: String = OutOfBandPayload.supportedContentType,
        version: String = OutOfBandPayload.supportedVersion
    ) {
        self.contentType = contentType
        self.version = version
        self.redeemData = redeemData
        self.attributes = attributes
    }
}

/// What the backend hands out: the payload as JSON, as QR text and as a deep link.
extension OutOfBandPayload {
    /// Minified JSON with sorted keys, so the same payload always gives the same text.
    public var json: String {
        // the keys in sorted order, nma_data's object written in place
        "{\"nma_data\":\(Self.minifiedJSON(nmaData)),\"nma_data_content_type\":\(WireJSON.quoted(contentType)),"
            + "\"nma_data_version\":\(WireJSON.quoted(version))}"
    }

    /// The `nma_data` object: the token, where to redeem it, and the attributes.
    var nmaData: [String: String] {
        var data = attributes
        data["token"] = redeemData.token
        data["redeem_url"] = redeemData.redeemURL.absoluteString
        return data
    }

    /// A flat object of strings as minified JSON with sorted keys and unescaped slashes, written
    /// by hand: JSONSerialization took a tenth of a login's CPU building the same text.
    static func minifiedJSON(_ object: [String: String]) -> String {
        "{" + object.sorted { $0.key < $1.key }.map { WireJSON.quoted($0.key) + ":" + WireJSON.quoted($0.value) }.joined(separator: ",") + "}"
    }

    /// QR text: the JSON, base64url-encoded without padding (shorter codes; padding is optional).
    public var qrText: String { Base64URL.encode(Array(json.utf8)) }

    /// `authphone://oob?dispatchTokenResponse=<base64url>`
    public var deepLink: String { "\(DeepLink.scheme)://\(DeepLink.host)?\(DeepLink.parameter)=\(qrText)" }
}
