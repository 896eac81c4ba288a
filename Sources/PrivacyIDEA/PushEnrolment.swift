import Foundation
import OTP

/// What privacyIDEA's push token QR code says (`create_push_token_url` in its
/// `lib/tokens/pushtoken.py`): `otpauth://pipush/LABEL?url=…&ttl=…&issuer=…&enrollment_credential=…
/// &v=1&serial=…&sslverify=…&poll_only=…`, or the same after `pia://`; or eduMFA's `edupush`
/// token's, the same after `edumfa-push://edumfa/` (without `poll_only`). The phone registers at `url`.
public struct PushEnrolment: Sendable, Equatable {
    /// Whose code it is: eduMFA, a privacyIDEA fork, speaks privacyIDEA's push protocol under
    /// its own names (`edupush`, `/ttype/edupush`), which the code's URL already carries.
    public enum Server: String, Sendable, Equatable, CaseIterable {
        case privacyIDEA, eduMFA

        /// The scheme and host a code of this server starts with (lower case).
        public var prefixes: [(scheme: String, host: String)] {
            switch self {
            case .privacyIDEA: [("otpauth", "pipush"), ("pia", "pipush")]
            case .eduMFA: [("edumfa-push", "edumfa")]
            }
        }

        /// The server whose code starts `scheme://host`; nil for another code.
        public init?(scheme: String, host: String) {
            guard let server = Self.allCases.first(where: { $0.prefixes.contains { $0 == (scheme, host) } }) else { return nil }
            self = server
        }
    }

    public var server: Server
    public var label: String
    public var issuer: String
    public var serial: String
    /// Where the phone registers, polls and answers: privacyIDEA's `/ttype/push`.
    public var url: URL
    /// Minutes privacyIDEA waits for the registration.
    public var ttlMinutes: Int
    /// The one-time proof that this phone may finish this token's enrolment.
    public var enrollmentCredential: String
    /// `sslverify=0` asks the phone not to check the server's certificate (honoured only for an
    /// origin the user accepted).
    public var sslVerify: Bool
    /// The token has no Firebase configuration: challenges come only by polling.
    public var pollOnly: Bool
    /// privacyIDEA's `push_force_app_pin` (`pin=True`) or `push_app_force_unlock`
    /// (`app_force_unlock=any|pin|biometric`): the app must be unlocked to answer, with the
    /// factor named; nil: no unlock is forced.
    public var forcedUnlock: ForcedUnlock?
    public var requiresUnlock: Bool { forcedUnlock != nil }

    /// What `app_force_unlock` allows to unlock with (`pin=True` allows either).
    public enum ForcedUnlock: String, Sendable, Equatable {
        case any, pin, biometric
    }

    /// The enrolment versions this phone speaks (privacyIDEA writes `v=1`).
    public static let versions = ["1"]
    static let maximumLength = 4 * 1024

    public init(text: String) throws(PrivacyIDEAError) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= Self.maximumLength else {
            throw .enrolment("the enrolment code is longer than \(Self.maximumLength) bytes")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let server = Server(scheme: scheme, host: components.host?.lowercased() ?? "")
        else { throw .enrolment("a privacyIDEA push enrolment starts with otpauth://pipush/ or pia://pipush/ (eduMFA's edumfa-push://edumfa/)") }
        self.server = server
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard fields[item.name] == nil else { throw .enrolment("the parameter '\(item.name)' is repeated") }
            fields[item.name] = item.value ?? ""
        }
        func required(_ name: String) throws(PrivacyIDEAError) -> String {
            guard let value = fields[name], !value.isEmpty else { throw .enrolment("the parameter '\(name)' is missing") }
            return value
        }
        let version = try required("v")
        guard Self.versions.contains(version) else {
            throw .enrolment("enrolment version '\(version)' is not supported (only \(Self.versions.joined(separator: ", ")))")
        }
        serial = try Self.printable(try required("serial"), "serial", limit: 128)
        enrollmentCredential = try Self.printable(try required("enrollment_credential"), "enrollment_credential", limit: 256)
        let registration = try required("url")
        guard let url = URL(string: registration), Self.isServerURL(url) else {
            throw .enrolment("the parameter 'url' must be an http(s) URL with a host")
        }
        self.url = url
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        label = try Self.printable(path.isEmpty ? serial : path, "label", limit: 256)
        issuer = try Self.printable(fields["issuer"].flatMap { $0.isEmpty ? nil : $0 } ?? server.rawValue, "issuer", limit: 128)
        guard let ttl = Int(fields["ttl"] ?? "10"), (1...10_080).contains(ttl) else {
            throw .enrolment("the parameter 'ttl' must be a number of minutes from 1 to 10080")
        }
        ttlMinutes = ttl
        sslVerify = try Self.flag(fields["sslverify"], "sslverify", default: true)
        pollOnly = try Self.flag(fields["poll_only"], "poll_only", default: false)
        if let forced = fields["app_force_unlock"] {
            guard let factor = ForcedUnlock(rawValue: forced.lowercased()) else {
                throw .enrolment("the parameter 'app_force_unlock' must be any, pin or biometric")
            }
            forcedUnlock = factor
        } else {
            forcedUnlock = try Self.flag(fields["pin"], "pin", default: false) ? .any : nil
        }
    }

    /// Where a token registers and answers: an http(s) URL with a host, and no user, password or
    /// fragment.
    public static func isServerURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            return false
        }
        return url.user == nil && url.password == nil && url.fragment == nil
    }

    /// privacyIDEA writes Python's booleans (`True`/`False`) and `0`/`1`.
    /// `refusal` names the kind of code being read.
    static func flag(
        _ value: String?, _ name: String, default: Bool, refusal: (String) -> PrivacyIDEAError = PrivacyIDEAError.enrolment
    ) throws(PrivacyIDEAError) -> Bool {
        switch value?.lowercased() {
        case nil: return `default`
        case "1", "true": return true
        case "0", "false": return false
        default: throw refusal("the parameter '\(name)' must be 0, 1, True or False")
        }
    }

    static func printable(
        _ value: String, _ name: String, limit: Int, refusal: (String) -> PrivacyIDEAError = PrivacyIDEAError.enrolment
    ) throws(PrivacyIDEAError) -> String {
        // a right-to-left override could make one issuer's name read as another's
        guard value.utf8.count <= limit, !OTPAuthURI.hidesText(value) else {
            throw refusal("the \(name) must be at most \(limit) bytes without control or invisible formatting characters")
        }
        return value
    }
}
