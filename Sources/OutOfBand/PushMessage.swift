import Foundation
import StrictJSON
import WireJSON

/// A push as the phone receives it: FCM's `data` map (string to string) and an optional banner.
/// The out-of-band payload travels in `data` as `nma_data` (JSON text),
/// `nma_data_content_type` and `nma_data_version`.
public struct PushMessage: Equatable, Sendable, Codable {
    public struct Notification: Equatable, Sendable, Codable {
        public var title: String?
        public var body: String?

        public init(title: String?, body: String?) {
            self.title = title
            self.body = body
        }
    }

    public var messageId: String?
    public var from: String?
    public var data: [String: String]
    public var notification: Notification?

    public init(messageId: String? = nil, from: String? = nil, data: [String: String], notification: Notification? = nil) {
        self.messageId = messageId
        self.from = from
        self.data = data
        self.notification = notification
    }

    /// The data map a backend sends for a payload.
    public static func data(for payload: OutOfBandPayload) -> [String: String] {
        [
            "nma_data": OutOfBandPayload.minifiedJSON(payload.nmaData),
            "nma_data_content_type": payload.contentType,
            "nma_data_version": payload.version,
        ]
    }

    /// The payload in the data map; keys that are not the payload's are left alone (a push may
    /// carry other data too).
    public func payload() throws(OutOfBandError) -> OutOfBandPayload {
        func field(_ key: String) throws(OutOfBandError) -> String {
            guard let value = data[key] else { throw .missingField("data.\(key)") }
            return value
        }
        let nmaData = try field("nma_data")
        return try OutOfBandDecoder.decode(contentType: field("nma_data_content_type"), version: field("nma_data_version"), nmaData: nmaData)
    }
}

/// Reads every shape a developer copies a push from: an FCM HTTP v1 send request
/// (`{"message": {…}}`, as a backend posts it), what an app is handed (`{"from", "messageId",
/// "data", "notification"}`), Android's `RemoteMessage.getData()` map on its own, and iOS's
/// `userInfo` (the data keys flat beside `aps`, `gcm.message_id` and `google.c.…`).
/// Its shape is open: which of the four a text is shows only in the keys it has, and the flat
/// ones hold data keys of any name beside the platform's, so it is read as an `OpenJSON` object
/// (strictly) and walked.
public enum PushDecoder {
    typealias Object = [String: OpenJSON]

    public static func decode(json bytes: [UInt8]) throws(OutOfBandError) -> PushMessage {
        guard !bytes.isEmpty else { throw .empty("push message") }
        guard bytes.count <= OutOfBandDecoder.maximumLength else {
            throw .tooLarge("push message", limit: OutOfBandDecoder.maximumLength)
        }
        let root = try object(fromJSON: bytes)
        if let message = root["message"] {
            guard case .object(let message) = message else { throw .invalidField("message", "must be an object") }
            return try decode(fields: message, prefix: "message.")
        }
        if root["data"] == nil, root["aps"] != nil || root["nma_data"] != nil {
            return try decodeFlat(root)
        }
        return try decode(fields: root, prefix: "")
    }

    /// The push as an open JSON object, read strictly first: a key twice is refused, as FCM refuses it.
    private static func object(fromJSON bytes: [UInt8]) throws(OutOfBandError) -> Object {
        do { _ = try StrictJSON.scan(bytes) } catch { throw .malformed("the push message is not valid JSON: \(error.message)") }
        guard case .object(let object)? = try? WireJSON.decoder().decode(OpenJSON.self, from: Data(bytes)) else {
            throw .malformed("the push message must be a JSON object")
        }
        return object
    }

    /// The keys iOS's `userInfo` adds beside the data: the banner and FCM's own bookkeeping.
    static func isPlatformKey(_ key: String) -> Bool {
        key == "aps" || key.hasPrefix("gcm.") || key.hasPrefix("google.")
    }

    /// A data map on its own (Android) or iOS's `userInfo`: every other key is data.
    private static func decodeFlat(_ root: Object) throws(OutOfBandError) -> PushMessage {
        var data: [String: String] = [:]
        for (key, value) in root where !isPlatformKey(key) {
            guard case .string(let text) = value else { throw .invalidField(key, "must be a string (push data values are strings)") }
            data[key] = text
        }
        var notification: PushMessage.Notification?
        if let aps = root["aps"] {
            guard case .object(let aps) = aps else { throw .invalidField("aps", "must be an object") }
            switch aps["alert"] {
            case nil: break
            case .string(let body): notification = .init(title: nil, body: body)
            case .object(let alert):
                notification = .init(title: try optionalString(alert, "title", "aps.alert."), body: try optionalString(alert, "body", "aps.alert."))
            default: throw .invalidField("aps.alert", "must be a string or an object")
            }
        }
        return PushMessage(messageId: try optionalString(root, "gcm.message_id", ""), from: nil, data: data, notification: notification)
    }

    private static func decode(fields: Object, prefix: String) throws(OutOfBandError) -> PushMessage {
        guard let rawData = fields["data"] else { throw .missingField(prefix + "data") }
        guard case .object(let dataObject) = rawData else { throw .invalidField(prefix + "data", "must be an object") }
        var data: [String: String] = [:]
        for (key, value) in dataObject {
            guard case .string(let text) = value else {
                throw .invalidField("\(prefix)data.\(key)", "must be a string (FCM data values are strings)")
            }
            data[key] = text
        }
        var notification: PushMessage.Notification?
        if let raw = fields["notification"] {
            guard case .object(let object) = raw else { throw .invalidField(prefix + "notification", "must be an object") }
            notification = .init(
                title: try optionalString(object, "title", prefix + "notification."),
                body: try optionalString(object, "body", prefix + "notification."))
        }
        return PushMessage(
            messageId: try optionalString(fields, "messageId", prefix),
            from: try optionalString(fields, "from", prefix), data: data, notification: notification)
    }

    private static func optionalString(_ object: Object, _ key: String, _ prefix: String) throws(OutOfBandError) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else { throw .invalidField(prefix + key, "must be a string") }
        return text
    }
}
