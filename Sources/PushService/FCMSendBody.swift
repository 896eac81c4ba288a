import Foundation
import OutOfBand
import StrictJSON
import WireJSON

/// An FCM HTTP v1 send body, `{"message": {…}, "validate_only": bool}`, read as FCM's protobuf
/// JSON parser reads it: a field by its proto name or its JSON name, an unknown one refused, each
/// refusal an `FCMError` worded as FCM words it.
struct FCMSendBody: Decodable {
    let message: FCMMessage
    let validateOnly: Bool

    /// The request's bytes, in the decoder's `userInfo`: a refused data entry is named by its
    /// place in the request, which a decoded object does not keep.
    static let requestKey = CodingUserInfoKey(rawValue: "FCMSendBody.request")!

    init(from decoder: any Decoder) throws {
        let members = try decoder.container(keyedBy: WireJSON.MemberName.self)
        let names = members.allKeys.map(\.stringValue)
        if let unknown = names.filter({ !["message", "validate_only", "validateOnly"].contains($0) }).min() {
            throw FCMError.invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
        }
        let flag = WireJSON.MemberName(names.contains("validate_only") ? "validate_only" : "validateOnly")
        // only true and false: FCM does not take 0 and 1
        do { validateOnly = try members.given(Bool.self, flag) ?? false } catch {
            throw FCMError.invalidArgument("Invalid value at '\(flag.stringValue)' (TYPE_BOOL)")
        }
        let messageField = WireJSON.MemberName("message")
        guard (try? members.nestedContainer(keyedBy: WireJSON.MemberName.self, forKey: messageField)) != nil else {
            throw FCMError.invalidArgument("Request contains an invalid argument: 'message' is required and must be an object.")
        }
        message = try members.decode(FCMMessage.self, forKey: messageField)
    }
}

/// `message`: its target, its platform blocks, its data and its notification, checked in that order.
struct FCMMessage: Decodable {
    let target: FCMSendRequest.Target
    let data: [String: String]
    let notification: PushMessage.Notification?

    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: WireJSON.MemberName.self)
        let names = fields.allKeys.map(\.stringValue)
        if let unknown = names.filter({ !FCMSendRequest.knownMessageFields.contains($0) }).min() {
            throw FCMError.invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\" at 'message': Cannot find field.")
        }
        target = try Self.target(in: fields)
        var blocks: [String: OpenJSON] = [:]
        for name in names where FCMPlatformOptions.checks(name) { blocks[name] = try fields.decode(OpenJSON.self, forKey: .init(name)) }
        try FCMPlatformOptions.check(blocks)
        data = try Self.data(in: fields, request: decoder.userInfo[FCMSendBody.requestKey] as? [UInt8] ?? [])
        notification = try fields.given(Notification.self, .init("notification"))?.shown
    }

    /// FCM's rule: exactly one of token, topic, condition and fid. AuthPhone serves the two that
    /// name one phone.
    private static func target(in fields: KeyedDecodingContainer<WireJSON.MemberName>) throws(FCMError) -> FCMSendRequest.Target {
        let given = FCMSendRequest.targetFields.filter { fields.contains(.init($0)) }
        guard given.count == 1 else {
            throw .invalidArgument(
                "Exactly one of token, topic, condition or fid must be given, not \(given.isEmpty ? "none" : given.joined(separator: " and ")).",
                rule: .oneTarget)
        }
        let field = given[0]
        guard field == "token" || field == "fid" else {
            throw .invalidArgument("Topics and conditions are not supported by AuthPhone's push service; send to a token or an fid.")
        }
        guard let value = try? fields.decode(String.self, forKey: .init(field)), !value.isEmpty else {
            throw .invalidArgument("Invalid value at 'message.\(field)' (TYPE_STRING)")
        }
        guard field == "fid" else { return .token(value) }
        guard FirebaseInstallationID.isWellFormed(value) else {
            throw .invalidArgument("The fid is not a valid Firebase installation ID (22 base64url characters).")
        }
        return .fid(value)
    }

    /// `data`, a map of strings whose keys are not reserved. A refusal names the first entry
    /// that breaks a rule by its place in `request`, as FCM names it.
    private static func data(in fields: KeyedDecodingContainer<WireJSON.MemberName>, request: [UInt8]) throws(FCMError) -> [String: String] {
        let key = WireJSON.MemberName("data")
        guard fields.contains(key) else { return [:] }
        if let data = try? fields.decode([String: String].self, forKey: key), !data.keys.contains(where: FCMSendRequest.isReserved) {
            return data
        }
        if let entries = try? fields.decode([String: OpenJSON].self, forKey: key) {
            let order = (try? StrictJSON.keys(at: "message.data", in: request)) ?? entries.keys.sorted()
            for (index, name) in order.enumerated() {
                let value = entries[name] ?? .null
                guard case .string = value else {
                    throw .invalidArgument("Invalid value at 'message.data[\(index)].value' (TYPE_STRING), \(value)", rule: .stringValues)
                }
                if FCMSendRequest.isReserved(name) { throw .invalidArgument("Invalid data payload key: '\(name)' is reserved.", rule: .reservedKeys) }
            }
        }
        // not an object (an entry that breaks a rule is named above)
        throw .invalidArgument("Invalid value at 'message.data' (Map)")
    }

    /// `notification`: what FCM shows, of which a phone here shows the title and the body.
    private struct Notification: Decodable {
        let shown: PushMessage.Notification

        init(from decoder: any Decoder) throws {
            guard let fields = try? decoder.container(keyedBy: WireJSON.MemberName.self) else {
                throw FCMError.invalidArgument("Invalid value at 'message.notification' (Notification)")
            }
            if let unknown = fields.allKeys.map(\.stringValue).filter({ !["title", "body", "image"].contains($0) }).min() {
                throw FCMError.invalidArgument(
                    "Invalid JSON payload received. Unknown name \"\(unknown)\" at 'message.notification': Cannot find field.")
            }
            func text(_ name: String) throws(FCMError) -> String? {
                do { return try fields.given(String.self, .init(name)) } catch {
                    throw .invalidArgument("Invalid value at 'message.notification.\(name)' (TYPE_STRING)")
                }
            }
            shown = .init(title: try text("title"), body: try text("body"))
            _ = try text("image")  // checked as FCM checks it, though not shown
        }
    }
}
