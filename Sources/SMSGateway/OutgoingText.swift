import Foundation
import Identifiers

/// A text a sender hands the gateway: to whom, from whom, what. Read from either door's request
/// and checked the same way, so a text the one door refuses the other refuses too.
public struct OutgoingText: Sendable, Equatable {
    public var to: PhoneNumber
    /// The sender as the phone shows it: a number, or an alphanumeric sender ID (`privacyIDEA`).
    public var from: String
    public var body: String

    /// Twilio's limit for a message's body, in characters.
    public static let maximumLength = 1600
    /// Who a text is from when the generic gateway's sender names no one.
    public static let unnamedSender = "AuthPhone"

    /// Checks each part, in the order a sender would fix them.
    public init(to: String?, from: String?, body: String?) throws(SMSError) {
        guard let to, !to.isEmpty else { throw .recipientMissing }
        do { self.to = try PhoneNumber(reading: to) } catch { throw .recipientInvalid(error.description) }
        guard let from, !from.isEmpty else { throw .senderMissing }
        self.from = try Self.checkedSender(from)
        guard let body, !body.isEmpty else { throw .bodyMissing }
        guard body.count <= Self.maximumLength else { throw .bodyTooLong(body.count) }
        if let control = body.unicodeScalars.first(where: { $0.properties.generalCategory == .control && !["\n", "\r", "\t"].contains($0) }) {
            throw .bodyUnreadable(
                "the body holds the control character U+\(String(control.value, radix: 16, uppercase: true)); only line breaks and tabs may be in a text"
            )
        }
        self.body = body
    }

    /// A number (kept in E.164), or an alphanumeric sender ID: 1 to 11 letters, digits and
    /// spaces with at least one letter, as GSM allows.
    static func checkedSender(_ from: String) throws(SMSError) -> String {
        if from.contains(where: \.isLetter) {
            guard from.count <= 11, from.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == " " }) else {
                throw .senderInvalid("'\(from.prefix(20))' is neither a number nor a sender ID (1 to 11 letters, digits and spaces)")
            }
            return from
        }
        do { return try PhoneNumber(reading: from).e164 } catch { throw .senderInvalid(error.description) }
    }

    // MARK: the generic gateway's request

    /// The names the generic gateway reads its parameters by: whichever one a sender is set to
    /// send (privacyIDEA's `SMS_PHONENUMBER_KEY` and `SMS_TEXT_KEY`, Keycloak's, a script's).
    public static let recipientNames = ["to", "phone", "number", "recipient", "msisdn", "destination"]
    public static let textNames = ["text", "message", "body", "msg", "content"]
    public static let senderNames = ["from", "sender", "originator"]

    /// The text of a generic gateway request, from its parameters (query, form or JSON object,
    /// merged by the door): each part under exactly one of its names, in any case.
    public init(gatewayParameters parameters: [String: String]) throws(SMSError) {
        func one(of names: [String], _ what: String) throws(SMSError) -> String? {
            let given = parameters.filter { names.contains($0.key.lowercased()) }
            guard given.count <= 1 else {
                throw .request(
                    "the \(what) is given twice (\(given.keys.sorted().joined(separator: ", "))): send one of \(names.joined(separator: ", "))")
            }
            return given.first?.value
        }
        let to = try one(of: Self.recipientNames, "recipient")
        let text = try one(of: Self.textNames, "text")
        let from = try one(of: Self.senderNames, "sender")
        guard to != nil else {
            throw .request("no recipient: send it as one of \(Self.recipientNames.joined(separator: ", "))")
        }
        guard text != nil else {
            throw .request("no text: send it as one of \(Self.textNames.joined(separator: ", "))")
        }
        try self.init(to: to, from: from ?? Self.unnamedSender, body: text)
    }

    /// Form fields (`a=1&b=2`) as a sender encodes them; nil when the body is not such a form.
    public static func formFields(_ body: [UInt8]) -> [(String, String)]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        var fields: [(String, String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : "") else { return nil }
            fields.append((name, value))
        }
        return fields
    }

    private static func decoded(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
