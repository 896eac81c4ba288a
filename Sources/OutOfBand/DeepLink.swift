import Foundation

/// Deep links that carry a payload: `authphone://oob?dispatchTokenResponse=…` or the app-link
/// form `http(s)://HOST/open?dispatchTokenResponse=…`. Anything else is refused rather than
/// guessed at, so that a look-alike link cannot smuggle a payload in.
public enum DeepLink {
    public static let scheme = "authphone"
    public static let host = "oob"
    public static let appLinkPath = "/open"
    public static let parameter = "dispatchTokenResponse"

    public static func decode(_ link: String) throws(OutOfBandError) -> OutOfBandPayload {
        let text = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .empty("link") }
        guard text.utf8.count <= OutOfBandDecoder.maximumLength else {
            throw .tooLarge("link", limit: OutOfBandDecoder.maximumLength)
        }
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), let components = URLComponents(string: text) else {
            throw .invalidLink("the link is not a valid URL")
        }
        guard let scheme = components.scheme?.lowercased() else { throw .invalidLink("the link has no scheme") }
        switch scheme {
        case Self.scheme:
            guard components.host?.lowercased() == host, components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/" else {
                throw .invalidLink("an \(Self.scheme): link must be \(Self.scheme)://\(host)?\(parameter)=…")
            }
        case "http", "https":
            guard let host = components.host, !host.isEmpty else { throw .invalidLink("the link has no host") }
            guard components.percentEncodedPath == appLinkPath else {
                throw .invalidLink("an http(s) link must have the path \(appLinkPath)")
            }
        default:
            throw .invalidLink("links with the scheme '\(scheme)' are not supported (use \(Self.scheme):// or https://)")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalidLink("the link must not carry a user name or password")
        }
        guard components.fragment == nil else { throw .invalidLink("the link must not have a fragment") }
        let items = components.queryItems ?? []
        if let stranger = items.first(where: { $0.name != parameter }) {
            throw .invalidLink("unexpected query parameter '\(stranger.name)' (only \(parameter) is allowed)")
        }
        guard items.count == 1 else {
            throw .invalidLink(items.isEmpty ? "the link has no \(parameter) parameter" : "the parameter \(parameter) is repeated")
        }
        guard let value = items[0].value, !value.isEmpty else { throw .invalidLink("the parameter \(parameter) is empty") }
        guard let bytes = Base64URL.decode(value) else {
            throw .invalidLink("the parameter \(parameter) is not base64url")
        }
        return try OutOfBandDecoder.decode(json: bytes)
    }
}
