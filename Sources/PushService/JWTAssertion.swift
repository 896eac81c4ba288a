import Crypto
import Foundation
import OutOfBand
import StrictJSON
import _CryptoExtras

/// The token request of RFC 7523 §2.1, read from its form body: the grant type and the assertion.
enum JWTBearerRequest {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The assertion of a JWT-bearer token request. Parameters this endpoint does not know are
    /// ignored, as RFC 6749 §3.2 asks; a known one given twice is refused.
    static func assertion(inForm body: [UInt8]) throws(OAuthError) -> String {
        var parameters: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count == 2 ? parts[1] : []) else {
                throw .invalidRequest("the body is not a form (application/x-www-form-urlencoded)")
            }
            guard parameters.updateValue(value, forKey: name) == nil || !["grant_type", "assertion"].contains(name) else {
                throw .invalidRequest("'\(name)' is given more than once")
            }
        }
        guard let grantType = parameters["grant_type"] else { throw .invalidRequest("'grant_type' is missing: send \(grantType)") }
        guard grantType == Self.grantType else {
            throw OAuthError(code: .unsupportedGrantType, description: "this endpoint grants \(Self.grantType) only (RFC 7523), not '\(grantType)'")
        }
        guard let assertion = parameters["assertion"], !assertion.isEmpty else { throw .invalidRequest("'assertion' is missing") }
        return assertion
    }

    /// A form's name or value: `+` is a space, then percent-decoding; nil for a bad escape.
    private static func decode(_ bytes: some Collection<UInt8>) -> String? {
        String(decoding: bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self).removingPercentEncoding
    }
}

/// A JWT-bearer assertion (RFC 7523 §3) as a sender's Google client signs one: a compact JWS
/// with an RS256 signature by the service account's key. Read first for its issuer, which names
/// the account; then checked whole against that account's key and this server's clock.
struct JWTAssertion {
    private let header: JSONObject
    private let claims: JSONObject
    /// `BASE64URL(header) "." BASE64URL(claims)`, what the signature covers.
    private let signingInput: Substring
    private let signature: [UInt8]

    /// What google-auth names as the audience whatever the key file's `token_uri` says (its
    /// `_GOOGLE_OAUTH2_TOKEN_ENDPOINT`); other clients name the `token_uri`.
    static let googleTokenEndpoint = "https://oauth2.googleapis.com/token"
    /// How far ahead of this server's clock a sender's may run.
    static let clockSkew: TimeInterval = 300
    /// Google's bound on an assertion's life (`exp - iat`).
    static let longestLife: TimeInterval = 3600

    init(_ compact: String) throws(OAuthError) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64URL.decode(String(parts[0])), let claims = Base64URL.decode(String(parts[1])),
            let signature = Base64URL.decode(String(parts[2]))
        else { throw .invalidGrant("the assertion is not a JWT: three base64url parts joined by dots") }
        self.header = try JSONObject(header, what: "header")
        self.claims = try JSONObject(claims, what: "claims set")
        signingInput = compact[..<parts[1].endIndex]
        self.signature = signature
    }

    /// The `iss` claim: the client email of the account that signed it.
    func issuer() throws(OAuthError) -> String {
        guard let issuer = try claims.string("iss") else { throw .invalidGrant("the assertion names no issuer (iss): it is the client_email") }
        return issuer
    }

    /// RFC 7523 §3's checks, in the order that tells a sender most: the algorithm, the key, the
    /// signature, then the claims it vouches for.
    func check(against account: ServiceAccount, tokenEndpoint: String, now: Date) throws(OAuthError) {
        let algorithm = try header.string("alg")
        guard algorithm == "RS256" else {
            throw .invalidGrant("the assertion is signed with \(algorithm.map { "'\($0)'" } ?? "no algorithm"): this endpoint takes RS256 only")
        }
        if let keyId = try header.string("kid"), keyId != account.keyId {
            throw .invalidGrant("the assertion's kid is not the key of \(account.clientEmail) (its private_key_id)")
        }
        guard
            account.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: Array(signingInput.utf8)),
                padding: .insecurePKCS1v1_5)
        else { throw .invalidGrant("the assertion's signature does not verify with the key of \(account.clientEmail)") }

        let audiences = try claims.strings("aud")
        guard audiences.contains(tokenEndpoint) || audiences.contains(Self.googleTokenEndpoint) else {
            throw .invalidGrant("the assertion's audience (aud) is neither this token endpoint (\(tokenEndpoint)) nor \(Self.googleTokenEndpoint)")
        }
        guard let expiry = try claims.number("exp"), let issued = try claims.number("iat") else {
            throw .invalidGrant("the assertion needs both exp and iat (seconds since 1970)")
        }
        let seconds = now.timeIntervalSince1970
        guard expiry > seconds else { throw .invalidGrant("the assertion expired (exp) \(Int(seconds - expiry)) s ago") }
        guard issued <= seconds + Self.clockSkew else {
            throw .invalidGrant("the assertion was issued (iat) \(Int(issued - seconds)) s in the future: the sender's clock is ahead")
        }
        guard expiry - issued <= Self.longestLife else {
            throw .invalidGrant("the assertion lives longer than an hour (exp - iat = \(Int(expiry - issued)) s)")
        }
        guard let scope = try claims.string("scope"), !scope.isEmpty else {
            throw OAuthError(code: .invalidScope, description: "the assertion asks for no scope")
        }
    }
}

/// A JWT part's JSON object, read strictly (a claim given twice is refused, RFC 7515 §5.2), each
/// claim fetched with its type checked.
private struct JSONObject {
    private let values: [String: Any]
    private let kinds: [String: StrictJSON.Kind]
    private let what: String

    init(_ bytes: [UInt8], what: String) throws(OAuthError) {
        let kinds: [String: StrictJSON.Kind]
        do { kinds = try StrictJSON.scan(bytes) } catch { throw .invalidGrant("the assertion's \(what) is not JSON: \(error.message)") }
        guard kinds[""] == .object, let values = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw .invalidGrant("the assertion's \(what) is not a JSON object")
        }
        self.values = values
        self.kinds = kinds
        self.what = what
    }

    func string(_ name: String) throws(OAuthError) -> String? {
        guard let value = values[name] else { return nil }
        guard let text = value as? String else { throw wrongType(name, "a string") }
        return text
    }

    /// A number, not a boolean (which Foundation reads as one too).
    func number(_ name: String) throws(OAuthError) -> Double? {
        guard values[name] != nil else { return nil }
        guard kinds[name] == .number, let number = (values[name] as? NSNumber)?.doubleValue else { throw wrongType(name, "a number") }
        return number
    }

    /// A string or an array of strings, as RFC 7519 §4.1.3 allows `aud`.
    func strings(_ name: String) throws(OAuthError) -> [String] {
        if let list = values[name] as? [Any] {
            guard let texts = list as? [String] else { throw wrongType(name, "a string or strings") }
            return texts
        }
        return try string(name).map { [$0] } ?? []
    }

    private func wrongType(_ name: String, _ type: String) -> OAuthError {
        .invalidGrant("the assertion's \(what) has '\(name)' that is not \(type)")
    }
}
