import Foundation
import WireJSON

/// A login request for a push token, as privacyIDEA builds it (`_build_smartphone_data` in its
/// `lib/tokens/pushtoken.py`) and sends it in an FCM message's data or a poll's answer: all text
/// fields, signed by the server's key for the token.
public struct PushChallenge: Sendable, Equatable, Codable {
    public var nonce: String
    public var question: String
    public var serial: String
    public var title: String
    /// Where the answer goes: privacyIDEA's `/ttype/push` as its policy names it.
    public var url: String
    public var sslVerify: Bool
    /// With `push_require_presence`: the options shown, of which the user picks the one the
    /// login page displays.
    public var presenceOptions: [String]?
    public var signature: String
    /// The optional features privacyIDEA says it understands (`{"decline_reason": true}`), kept
    /// only once their detached signature holds (`verified(by:)`): otherwise the phone answers
    /// as an app that knows none.
    public var capabilities: [String: Bool]?
    var capabilitiesSignature: String?

    /// How long the phone keeps an unanswered challenge: the FCM message's own time to live
    /// (privacyIDEA's Firebase provider sends `ttl: 120s`), as privacyIDEA's app does.
    public static let lifetime: Duration = .seconds(120)

    /// A field as it arrived: privacyIDEA sends text only, in a push's data map or a poll's JSON.
    public enum Field: Sendable, Equatable, Decodable, ExpressibleByStringLiteral {
        case text(String)
        /// A number, a list, an object or null: refused by the field's name where it is read.
        case notText

        public init(stringLiteral text: String) { self = .text(text) }

        public init(from decoder: any Decoder) throws {
            self = (try? decoder.singleValueContainer().decode(String.self)).map(Field.text) ?? .notText
        }
    }

    /// A push's data map, all text.
    public init(data: [String: String]) throws(PrivacyIDEAError) {
        try self.init(fields: data.mapValues(Field.text))
    }

    /// The fields privacyIDEA sends; others (`version`…) are ignored, as its app ignores fields it
    /// does not know. Capabilities that are not a JSON object of flags are ignored the same way.
    public init(fields: [String: Field]) throws(PrivacyIDEAError) {
        func text(_ name: String) throws(PrivacyIDEAError) -> String {
            guard let value = fields[name] else { throw .challenge("the field '\(name)' is missing") }
            guard case .text(let text) = value else { throw .challenge("the field '\(name)' must be text") }
            guard text.utf8.count <= 4096 else { throw .challenge("the field '\(name)' is longer than 4096 bytes") }
            return text
        }
        nonce = try text("nonce")
        guard !nonce.isEmpty else { throw .challenge("the field 'nonce' is empty") }
        question = try text("question")
        serial = try text("serial")
        title = try text("title")
        url = try text("url")
        signature = try text("signature")
        switch try text("sslverify") {
        case "0": sslVerify = false
        case "1": sslVerify = true
        default: throw .challenge("the field 'sslverify' must be 0 or 1")
        }
        if fields["require_presence"] != nil {
            let options = try text("require_presence").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard options.count >= 2, !options.contains(where: \.isEmpty) else {
                throw .challenge("the field 'require_presence' must list two or more options, separated by commas")
            }
            presenceOptions = options
        }
        if case .text(let text) = fields["capabilities"], case .text(let signature) = fields["capabilities_signature"],
            text.utf8.count <= 4096, let flags = try? JSONDecoder().decode([String: Bool].self, from: Data(text.utf8))
        {
            capabilities = flags
            capabilitiesSignature = signature
        }
    }

    /// Whether the user may say why they decline (privacyIDEA's `decline_reason` capability).
    public var takesDeclineReason: Bool { capabilities?["decline_reason"] == true }

    /// What privacyIDEA signs: `nonce|url|serial|question|title|sslverify`, and `|options` when
    /// presence is required.
    public var signedText: String {
        var text = [nonce, url, serial, question, title, sslVerify ? "1" : "0"].joined(separator: "|")
        if let presenceOptions { text += "|" + presenceOptions.joined(separator: ",") }
        return text
    }

    /// The challenge only if the token's server signed it as it stands: an altered field or
    /// another key's signature is refused.
    public func verified(by key: PrivacyIDEAServerKey) throws(PrivacyIDEAError) -> PushChallenge {
        guard key.isValid(signature: signature, for: signedText) else {
            throw .forged("the challenge for \(serial) is not signed by its privacyIDEA server's key")
        }
        var verified = self
        if let capabilities, let capabilitiesSignature,
            !key.isValid(signature: capabilitiesSignature, for: Self.signedCapabilities(capabilities, nonce: nonce))
        {
            verified.capabilities = nil
        }
        verified.capabilitiesSignature = nil
        return verified
    }

    /// What privacyIDEA signs for its capabilities: `{"capabilities": …, "nonce": …}` as RFC 8785
    /// canonical JSON (keys in UTF-16 order, no spaces), so the signature covers this challenge only.
    static func signedCapabilities(_ capabilities: [String: Bool], nonce: String) -> String {
        let flags = capabilities.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            .map { WireJSON.quoted($0.key) + ":" + ($0.value ? "true" : "false") }
        return "{\"capabilities\":{" + flags.joined(separator: ",") + "},\"nonce\":" + WireJSON.quoted(nonce) + "}"
    }
}

/// How the user answered a challenge.
public enum PushAnswer: Sendable, Equatable {
    /// Accept; with presence required, the option picked.
    case accept(presence: String?)
    /// Decline, saying why where privacyIDEA takes a reason.
    case decline(DeclineReason?)
}

/// Why the user declined (privacyIDEA's `PushDeclineReason`): its log tells a login the user
/// did not start apart from one they gave up.
public enum DeclineReason: String, Sendable, Codable, CaseIterable {
    case unknownTrigger = "unknown_trigger"
    case cancelled
}
