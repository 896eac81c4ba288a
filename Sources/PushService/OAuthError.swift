/// A refusal of the token endpoint as RFC 6749 §5.2 answers it, `{"error": CODE,
/// "error_description": …}`, so an OAuth client (google-auth's `RefreshError`) shows its words.
/// The description never repeats the assertion: it is a credential for as long as it lives.
public struct OAuthError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A parameter missing or given twice, or a body that is not a form.
        case invalidRequest = "invalid_request"
        /// The assertion: not a JWT, or not one this server takes (RFC 7523 §3.1).
        case invalidGrant = "invalid_grant"
        case unsupportedGrantType = "unsupported_grant_type"
        /// The assertion asks for no scope.
        case invalidScope = "invalid_scope"
        /// The storage failed: a Google client tries again on this code.
        case temporarilyUnavailable = "temporarily_unavailable"
    }

    public let code: Code
    public let description: String

    /// 400 for every refusal of the request, 503 when the server could not answer it.
    public var status: Int { code == .temporarilyUnavailable ? 503 : 400 }

    public static func invalidRequest(_ description: String) -> OAuthError { OAuthError(code: .invalidRequest, description: description) }
    public static func invalidGrant(_ description: String) -> OAuthError { OAuthError(code: .invalidGrant, description: description) }

    public struct Body: Codable, Equatable, Sendable {
        public var error: String
        public var errorDescription: String

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    public var body: Body { Body(error: code.rawValue, errorDescription: description) }
}

/// An access token as RFC 6749 §5.1 answers it.
public struct AccessTokenGrant: Codable, Equatable, Sendable {
    public var accessToken: String
    public var tokenType: String
    /// Seconds from now.
    public var expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}
