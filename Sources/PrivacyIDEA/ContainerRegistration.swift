import Foundation

/// What privacyIDEA's smartphone container QR code says (`create_container_registration_url` in its
/// `lib/containers/smartphone.py`): `pia://container/SERIAL?issuer=…&ttl=…&nonce=…&time=…&url=…
/// &serial=…&key_algorithm=secp384r1&hash_algorithm=SHA256&ssl_verify=…&passphrase=…&send_passphrase=…`.
/// The phone signs the nonce and time with a key of its own and finalizes at `url`.
public struct ContainerRegistration: Sendable, Equatable {
    public var serial: String
    public var issuer: String
    /// privacyIDEA's base URL, which every container endpoint hangs off (`create_endpoint_url`).
    public var serverURL: URL
    /// The registration challenge: signed verbatim, `time` as privacyIDEA wrote it.
    public var nonce: String
    public var time: String
    /// When privacyIDEA stops waiting: `time` plus `ttl` minutes.
    public var expiresAt: Date
    public var sslVerify: Bool
    /// The prompt shown for a passphrase the registration needs; nil when it needs none.
    public var passphrasePrompt: String?
    /// The passphrase goes to privacyIDEA as a field (a user store's password), not only into the signature.
    public var sendsPassphrase: Bool

    public static let scheme = "pia"
    public static let host = "container"
    /// The only key and hash privacyIDEA's smartphone container offers (`SmartphoneContainer.options`).
    public static let keyAlgorithm = "secp384r1"
    public static let hashAlgorithm = "SHA256"

    /// `now` decides whether the code has expired.
    public init(text: String, now: Date) throws(PrivacyIDEAError) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= PushEnrolment.maximumLength else {
            throw .container("the container code is longer than \(PushEnrolment.maximumLength) bytes")
        }
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == Self.scheme,
            components.host?.lowercased() == Self.host
        else { throw .container("a privacyIDEA container code starts with pia://container/") }
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard fields[item.name] == nil else { throw .container("the parameter '\(item.name)' is repeated") }
            fields[item.name] = item.value ?? ""
        }
        func required(_ name: String) throws(PrivacyIDEAError) -> String {
            guard let value = fields[name], !value.isEmpty else { throw .container("the parameter '\(name)' is missing") }
            return value
        }
        let keyAlgorithm = try required("key_algorithm")
        guard keyAlgorithm.lowercased() == Self.keyAlgorithm else {
            throw .container("the key algorithm '\(keyAlgorithm)' is not supported (only \(Self.keyAlgorithm))")
        }
        let hashAlgorithm = try required("hash_algorithm")
        guard hashAlgorithm.uppercased() == Self.hashAlgorithm else {
            throw .container("the hash algorithm '\(hashAlgorithm)' is not supported (only \(Self.hashAlgorithm))")
        }
        serial = try Self.token(try required("serial"), "serial")
        nonce = try Self.token(try required("nonce"), "nonce")
        time = try required("time")
        // Python's isoformat() writes microseconds, or none on a whole second
        guard
            let issued = (try? Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
                ?? (try? Date(time, strategy: .iso8601))
        else { throw .container("the parameter 'time' is not an ISO 8601 time with its offset") }
        guard let ttl = Int(fields["ttl"] ?? "10"), (1...10_080).contains(ttl) else {
            throw .container("the parameter 'ttl' must be a number of minutes from 1 to 10080")
        }
        expiresAt = issued.addingTimeInterval(Double(ttl) * 60)
        guard expiresAt > now else {
            throw PrivacyIDEAError(code: "CONTAINER_CODE_EXPIRED", message: "the container code expired at \(time) + \(ttl) min")
        }
        guard let url = URL(string: try required("url")), PushEnrolment.isServerURL(url) else {
            throw .container("the parameter 'url' must be an http(s) URL with a host")
        }
        serverURL = url
        let issuer = fields["issuer"].flatMap { $0.isEmpty ? nil : $0 } ?? "privacyIDEA"
        self.issuer = try PushEnrolment.printable(issuer, "issuer", limit: 128, refusal: PrivacyIDEAError.container)
        sslVerify = try PushEnrolment.flag(fields["ssl_verify"], "ssl_verify", default: true, refusal: PrivacyIDEAError.container)
        let prompt = try PushEnrolment.printable(fields["passphrase"] ?? "", "passphrase prompt", limit: 512, refusal: PrivacyIDEAError.container)
        passphrasePrompt = prompt.isEmpty ? nil : prompt
        sendsPassphrase = try PushEnrolment.flag(fields["send_passphrase"], "send_passphrase", default: false, refusal: PrivacyIDEAError.container)
        if sendsPassphrase, passphrasePrompt == nil { passphrasePrompt = "Please enter the passphrase of your user store." }
    }

    /// A serial or nonce: printable ASCII without spaces, as privacyIDEA makes them.
    static func token(_ value: String, _ name: String) throws(PrivacyIDEAError) -> String {
        guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "|") }) else {
            throw .container("the \(name) must be 1 to 128 printable ASCII characters without spaces or '|'")
        }
        return value
    }
}

/// privacyIDEA's container endpoints under a server's base URL, and the scope each challenge is
/// bound to: the endpoint's full URL (`create_endpoint_url`).
public enum ContainerEndpoint: String, Sendable, CaseIterable {
    case finalize = "container/register/finalize"
    case challenge = "container/challenge"
    case synchronize = "container/synchronize"
    case rollover = "container/rollover"
    case terminate = "container/register/terminate/client"

    public func url(on server: URL) -> String {
        let base = server.absoluteString
        if base.contains(rawValue) { return base }
        return (base.hasSuffix("/") ? base : base + "/") + rawValue
    }
}
