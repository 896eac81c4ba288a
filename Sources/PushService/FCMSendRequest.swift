import Foundation
import OutOfBand
import StrictJSON

/// An FCM HTTP v1 send request, checked the way FCM checks it for what AuthPhone covers.
/// Pure: bytes in, a validated request or an `FCMError` out.
public struct FCMSendRequest: Equatable, Sendable {
    /// Whom a message is for: the app instance's registration token, or (as the Admin SDKs now
    /// send) its Firebase installation id.
    public enum Target: Equatable, Sendable {
        case token(String)
        case fid(String)

        /// The token or the fid as the sender gave it.
        public var given: String {
            switch self {
            case .token(let token), .fid(let token): token
            }
        }
    }

    public var target: Target
    public var message: PushMessage
    public var validateOnly: Bool

    /// FCM's limit on a message's data and notification together.
    public static let payloadLimit = 4096
    public static let reservedKeys: Set<String> = ["from", "message_type"]
    public static let reservedPrefixes = ["google.", "gcm."]
    /// The fields that name a message's recipient, of which FCM takes exactly one.
    public static let targetFields = ["token", "topic", "condition", "fid"]
    /// The fields of an FCM HTTP v1 message (`fcm_options` by its JSON name too, as protobuf's parser takes it).
    public static let knownMessageFields: Set<String> = [
        "name", "token", "topic", "condition", "fid", "data", "notification", "android", "apns", "webpush", "fcm_options", "fcmOptions",
    ]

    public static func parse(_ bytes: [UInt8]) throws(FCMError) -> FCMSendRequest {
        // FCM's own parser (protobuf JSON) refuses a key given twice and anything else RFC 8259 does.
        let kinds: [String: StrictJSON.Kind]
        do { kinds = try StrictJSON.scan(bytes) } catch { throw .invalidArgument("Invalid JSON payload received. \(error.message)") }
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes)), let root = value as? [String: Any] else {
            throw .invalidArgument("Invalid JSON payload received.")
        }
        for key in root.keys where key != "message" && key != "validate_only" && key != "validateOnly" {
            throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.")
        }
        let validateOnly: Bool
        let flagName = root["validate_only"] != nil ? "validate_only" : "validateOnly"
        switch (root[flagName], kinds[flagName]) {
        case (nil, _): validateOnly = false
        // Foundation reads 0 and 1 as booleans too; FCM takes only true and false.
        case (let flag as Bool, .bool?): validateOnly = flag
        default: throw .invalidArgument("Invalid value at '\(flagName)' (TYPE_BOOL)")
        }
        guard let message = root["message"] as? [String: Any] else {
            throw .invalidArgument("Request contains an invalid argument: 'message' is required and must be an object.")
        }
        for key in message.keys where !knownMessageFields.contains(key) {
            throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(key)\" at 'message': Cannot find field.")
        }
        let target = try Self.target(of: message)
        try FCMPlatformOptions.check(message, kinds: kinds)

        var data: [String: String] = [:]
        if let raw = message["data"] {
            guard let object = raw as? [String: Any] else { throw .invalidArgument("Invalid value at 'message.data' (Map)") }
            // an entry is named by its place in the request, as FCM names it (the bytes were read above)
            let order = (try? StrictJSON.keys(at: "message.data", in: bytes)) ?? object.keys.sorted()
            for (index, key) in order.enumerated() {
                guard let text = object[key] as? String else {
                    throw .invalidArgument(
                        "Invalid value at 'message.data[\(index)].value' (TYPE_STRING), \(object[key].map { "\($0)" } ?? "null")", rule: .stringValues
                    )
                }
                if reservedKeys.contains(key) || reservedPrefixes.contains(where: key.hasPrefix) {
                    throw .invalidArgument("Invalid data payload key: '\(key)' is reserved.", rule: .reservedKeys)
                }
                data[key] = text
            }
        }
        var notification: PushMessage.Notification?
        if let raw = message["notification"] {
            guard let object = raw as? [String: Any] else { throw .invalidArgument("Invalid value at 'message.notification' (Notification)") }
            for key in object.keys where !["title", "body", "image"].contains(key) {
                throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(key)\" at 'message.notification': Cannot find field.")
            }
            func text(_ key: String) throws(FCMError) -> String? {
                guard let value = object[key] else { return nil }
                guard let text = value as? String else { throw .invalidArgument("Invalid value at 'message.notification.\(key)' (TYPE_STRING)") }
                return text
            }
            notification = .init(title: try text("title"), body: try text("body"))
        }
        let size =
            data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
            + (notification?.title?.utf8.count ?? 0) + (notification?.body?.utf8.count ?? 0)
        guard size <= payloadLimit else {
            throw .invalidArgument("Message is too big: \(size) bytes of data and notification, the limit is \(payloadLimit).", rule: .sizeLimit)
        }
        return FCMSendRequest(target: target, message: PushMessage(data: data, notification: notification), validateOnly: validateOnly)
    }

    /// FCM's rule: exactly one of token, topic, condition and fid. AuthPhone serves the two that
    /// name one phone.
    static func target(of message: [String: Any]) throws(FCMError) -> Target {
        let given = targetFields.filter { message[$0] != nil }
        guard given.count == 1 else {
            throw .invalidArgument(
                "Exactly one of token, topic, condition or fid must be given, not \(given.isEmpty ? "none" : given.joined(separator: " and ")).",
                rule: .oneTarget)
        }
        let field = given[0]
        guard field == "token" || field == "fid" else {
            throw .invalidArgument("Topics and conditions are not supported by AuthPhone's push service; send to a token or an fid.")
        }
        guard let value = message[field] as? String, !value.isEmpty else {
            throw .invalidArgument("Invalid value at 'message.\(field)' (TYPE_STRING)")
        }
        guard field == "fid" else { return .token(value) }
        guard FirebaseInstallationID.isWellFormed(value) else {
            throw .invalidArgument("The fid is not a valid Firebase installation ID (22 base64url characters).")
        }
        return .fid(value)
    }

    /// The target a message names, read leniently, so that a refused message is logged with its
    /// target too: its token, else its topic or condition.
    public static func target(in bytes: [UInt8]) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let message = root["message"] as? [String: Any]
        else { return nil }
        return targetFields.lazy.compactMap { message[$0] as? String }.first
    }
}
