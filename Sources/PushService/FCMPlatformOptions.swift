import Foundation
import StrictJSON

/// The parts of an FCM HTTP v1 message that speak to a platform (`android`, `apns`, `webpush`)
/// or to Firebase itself (`fcm_options`), checked against FCM's v1 schema as FCM checks them: an
/// unknown field or a value of the wrong type is INVALID_ARGUMENT. A phone here shows none of
/// them, but a sender's message (privacyIDEA's carries an `android` and an `apns` block) must be
/// accepted exactly when FCM would accept it.
enum FCMPlatformOptions {
    /// The shape of a field of the schema, as far as its check needs.
    enum Shape: Sendable {
        case string, bool, integer
        /// A protobuf Duration: seconds with up to nine decimals and an `s` (`"120s"`, `"3.5s"`).
        case duration
        /// A protobuf enum, by its name and values.
        case oneOf(String, [String])
        /// A map of strings to strings (`data`, `headers`).
        case stringMap
        /// Lists of strings, of durations.
        case strings, durations
        /// A `google.protobuf.Struct`: any JSON object (APNs' payload, the web notification).
        case anyObject
        /// A message of the schema, by its name and fields.
        case fields(String, [String: Shape])
    }

    /// The message fields checked here, each with its shape.
    static let shapes: [String: Shape] = [
        "android": .fields(
            "AndroidConfig",
            [
                "collapse_key": .string, "priority": .oneOf("AndroidMessagePriority", ["NORMAL", "HIGH"]), "ttl": .duration,
                "restricted_package_name": .string, "data": .stringMap, "notification": androidNotification,
                "fcm_options": .fields("AndroidFcmOptions", ["analytics_label": .string]), "direct_boot_ok": .bool,
                "bandwidth_constrained_ok": .bool, "restricted_satellite_ok": .bool,
            ]),
        "apns": .fields(
            "ApnsConfig",
            [
                "headers": .stringMap, "payload": .anyObject,
                "fcm_options": .fields("ApnsFcmOptions", ["analytics_label": .string, "image": .string]), "live_activity_token": .string,
            ]),
        "webpush": .fields(
            "WebpushConfig",
            [
                "headers": .stringMap, "data": .stringMap, "notification": .anyObject,
                "fcm_options": .fields("WebpushFcmOptions", ["link": .string, "analytics_label": .string]),
            ]),
        "fcm_options": .fields("FcmOptions", ["analytics_label": .string]),
    ]

    private static let androidNotification = Shape.fields(
        "AndroidNotification",
        [
            "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string, "click_action": .string,
            "body_loc_key": .string, "body_loc_args": .strings, "title_loc_key": .string, "title_loc_args": .strings,
            "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .string, "local_only": .bool,
            "notification_priority": .oneOf(
                "NotificationPriority", ["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX"]),
            "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool, "vibrate_timings": .durations,
            "visibility": .oneOf("Visibility", ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]), "notification_count": .integer,
            "light_settings": .fields(
                "LightSettings",
                [
                    "color": .fields("Color", ["red": .integer, "green": .integer, "blue": .integer, "alpha": .integer]),
                    "light_on_duration": .duration, "light_off_duration": .duration,
                ]),
            "image": .string, "bypass_proxy_notification": .bool,
            "proxy": .oneOf("Proxy", ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]),
        ])

    /// Checks the message's platform blocks; `kinds` are the whole request's, from `StrictJSON.scan`.
    static func check(_ message: [String: Any], kinds: [String: StrictJSON.Kind]) throws(FCMError) {
        for (field, shape) in shapes {
            guard let value = message[field] else { continue }
            try check(value, shape, path: "message.\(field)", kinds: kinds)
        }
    }

    private static func check(_ value: Any, _ shape: Shape, path: String, kinds: [String: StrictJSON.Kind]) throws(FCMError) {
        func invalid(_ type: String) -> FCMError {
            let given = (value as? String).map { ", \"\($0)\"" } ?? ""
            return .invalidArgument("Invalid value at '\(path)' (\(type))\(given)")
        }
        switch shape {
        case .string:
            guard value as? String != nil else { throw invalid("TYPE_STRING") }
        case .bool:
            guard kinds[path] == .bool else { throw invalid("TYPE_BOOL") }
        case .integer:
            // protobuf's JSON takes a whole number, or one written as a string
            let whole =
                (value as? String).flatMap { Int32($0) } != nil
                || (kinds[path] == .number && (value as? NSNumber).map { Int32(exactly: $0.doubleValue) != nil } == true)
            guard whole else { throw invalid("TYPE_INT32") }
        case .duration:
            guard let text = value as? String, isDuration(text) else { throw invalid("google.protobuf.Duration, seconds and an 's': \"120s\"") }
        case .oneOf(let name, let values):
            guard let text = value as? String, values.contains(text) else { throw invalid("\(name): \(values.joined(separator: ", "))") }
        case .stringMap:
            guard let map = value as? [String: Any] else { throw invalid("Map") }
            for key in map.keys.sorted() where map[key] as? String == nil {
                throw .invalidArgument("Invalid value at '\(path).\(key)' (TYPE_STRING)")
            }
        case .strings, .durations:
            guard let list = value as? [Any] else { throw invalid("list") }
            let element: Shape = if case .strings = shape { .string } else { .duration }
            for item in list { try check(item, element, path: path + "[]", kinds: kinds) }
        case .anyObject:
            guard value as? [String: Any] != nil else { throw invalid("google.protobuf.Struct") }
        case .fields(let name, let fields):
            guard let object = value as? [String: Any] else { throw invalid(name) }
            for key in object.keys.sorted() {
                guard let inner = fields[key] else {
                    throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(key)\" at '\(path)': Cannot find field.")
                }
                try check(object[key]!, inner, path: "\(path).\(key)", kinds: kinds)
            }
        }
    }

    /// `"120s"`, `"3.5s"`, `"0.000000001s"`: protobuf's JSON for a Duration that FCM takes (not negative).
    static func isDuration(_ text: String) -> Bool {
        guard text.hasSuffix("s") else { return false }
        let number = text.dropLast().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        return digits(number[0]) && (number.count == 1 || (digits(number[1]) && number[1].count <= 9))
    }
}
