import Crypto
import Foundation
import OutOfBand
import StrictJSON
import WireJSON
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
    private let header: Header
    private let claims: Claims
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
        self.header = try Self.part(header, what: "header")
        self.claims = try Self.part(claims, what: "claims set")
        signingInput = compact[..<parts[1].endIndex]
        self.signature = signature
    }

    /// The `iss` claim: the client email of the account that signed it.
    func issuer() throws(OAuthError) -> String {
        guard let issuer = claims.iss else { throw .invalidGrant("the assertion names no issuer (iss): it is the client_email") }
        return issuer
    }

    /// RFC 7523 §3's checks, in the order that tells a sender most: the algorithm, the key, the
    /// signature, then the claims it vouches for.
    func check(against account: ServiceAccount, tokenEndpoint: String, now: Date) throws(OAuthError) {
        guard header.alg == "RS256" else {
            throw .invalidGrant("the assertion is signed with \(header.alg.map { "'\($0)'" } ?? "no algorithm"): this endpoint takes RS256 only")
        }
        if let keyId = header.kid, keyId != account.keyId {
            throw .invalidGrant("the assertion's kid is not the key of \(account.clientEmail) (its private_key_id)")
        }
        guard
            account.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: Array(signingInput.utf8)),
                padding: .insecurePKCS1v1_5)
        else { throw .invalidGrant("the assertion's signature does not verify with the key of \(account.clientEmail)") }

        let audiences = claims.aud?.names ?? []
        guard audiences.contains(tokenEndpoint) || audiences.contains(Self.googleTokenEndpoint) else {
            throw .invalidGrant("the assertion's audience (aud) is neither this token endpoint (\(tokenEndpoint)) nor \(Self.googleTokenEndpoint)")
        }
        guard let expiry = claims.exp, let issued = claims.iat else {
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
        guard let scope = claims.scope, !scope.isEmpty else {
            throw OAuthError(code: .invalidScope, description: "the assertion asks for no scope")
        }
    }

    /// A JWT part's JSON object, read strictly (a claim given twice is refused, RFC 7515 §5.2); a
    /// field of the wrong type is named with the type it must be.
    private static func part<Part: Decodable>(_ bytes: [UInt8], what: String) throws(OAuthError) -> Part {
        let kinds: [String: StrictJSON.Kind]
        do { kinds = try StrictJSON.scan(bytes) } catch { throw .invalidGrant("the assertion's \(what) is not JSON: \(error.message)") }
        guard kinds[""] == .object else { throw .invalidGrant("the assertion's \(what) is not a JSON object") }
        do { return try WireJSON.decoder().decode(Part.self, from: Data(bytes)) } catch DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context), DecodingError.dataCorrupted(let context)
        {
            // every field is optional, so what fails is a field's kind (a boolean is no number either)
            guard let field = context.codingPath.first.flatMap({ Field(rawValue: $0.stringValue) }) else {
                throw .invalidGrant("the assertion's \(what) could not be read")
            }
            throw .invalidGrant("the assertion's \(what) has '\(field.rawValue)' that is not \(field.kind)")
        } catch {
            throw .invalidGrant("the assertion's \(what) could not be read")
        }
    }

    /// The fields of the header and the claims set this server checks, with the kind each must be.
    private enum Field: String, CodingKey {
        case alg, kid, iss, aud, exp, iat, scope

        var kind: String {
            switch self {
            case .exp, .iat: "a number"
            case .aud: "a string or strings"
            case .alg, .kid, .iss, .scope: "a string"
            }
        }
    }

    /// The header's fields this server checks; the others (`typ`) are left to the sender.
    private struct Header: Decodable {
        let alg: String?
        let kid: String?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: Field.self)
            alg = try fields.given(String.self, .alg)
            kid = try fields.given(String.self, .kid)
        }
    }

    /// The claims this server checks. The set is open (RFC 7519 §4: `sub`, `jti`, private
    /// claims): the others are ignored, not refused.
    private struct Claims: Decodable {
        let iss: String?
        let aud: Audience?
        let exp: Double?
        let iat: Double?
        let scope: String?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: Field.self)
            iss = try fields.given(String.self, .iss)
            aud = try fields.given(Audience.self, .aud)
            exp = try fields.given(Double.self, .exp)
            iat = try fields.given(Double.self, .iat)
            scope = try fields.given(String.self, .scope)
        }
    }

    /// `aud`: one string or a list of them, as RFC 7519 §4.1.3 allows.
    private struct Audience: Decodable {
        let names: [String]

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            names = try (try? value.decode(String.self)).map { [$0] } ?? value.decode([String].self)
        }
    }
}
