import Foundation
import WireJSON

/// The parts of an FCM HTTP v1 message that speak to a platform (`android`, `apns`, `webpush`)
/// or to Firebase itself (`fcm_options`), checked against FCM's v1 schema as Google's protobuf
/// JSON parser checks them: an unknown field, a value of the wrong type or a bad duration is
/// INVALID_ARGUMENT; a field is named by its proto name or its lowerCamelCase JSON name, an enum
/// by its name in any case or its number, and `null` is a field left out. A phone here shows none
/// of them, but a sender's message (privacyIDEA's, or the Admin SDKs', which write `"high"` and
/// `"private"` in lower case) must be accepted exactly when FCM would accept it.
enum FCMPlatformOptions {
    /// The shape of a field of the schema, as far as its check needs.
    enum Shape: Sendable {
        case string, bool, integer
        /// A float: a number, or one written as a string (`google.type.Color`'s parts, 0 to 1).
        case number
        /// A protobuf Duration: seconds with up to nine decimals and an `s` (`"120s"`, `"3.5s"`).
        case duration
        /// A protobuf Timestamp: RFC 3339 (`"2026-11-28T10:00:00.123Z"`, an offset instead of `Z`).
        case timestamp
        /// A protobuf enum, by its name and values in the order of their numbers.
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
            "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .timestamp, "local_only": .bool,
            "notification_priority": .oneOf(
                "NotificationPriority", ["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX"]),
            "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool, "vibrate_timings": .durations,
            "visibility": .oneOf("Visibility", ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]), "notification_count": .integer,
            "light_settings": .fields(
                "LightSettings",
                [
                    "color": .fields("Color", ["red": .number, "green": .number, "blue": .number, "alpha": .number]),
                    "light_on_duration": .duration, "light_off_duration": .duration,
                ]),
            "image": .string, "bypass_proxy_notification": .bool,
            "proxy": .oneOf("Proxy", ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]),
        ])

    /// Whether a message's field is one checked here, by its proto name or its JSON name.
    static func checks(_ field: String) -> Bool {
        shapes[field] != nil || shapes.keys.contains { jsonName($0) == field }
    }

    /// Checks a message's platform blocks (its fields that `checks` takes), read as open JSON:
    /// FCM refuses their fields one by one, each named by its path and its schema's type, which
    /// a type decoded whole would not word as FCM does.
    static func check(_ blocks: [String: OpenJSON]) throws(FCMError) {
        try checkFields(of: blocks, shapes, path: "message", unknown: { _ in })
    }

    /// The field's JSON name, which protobuf's parser takes as well as the proto name: `collapse_key` → `collapseKey`.
    static func jsonName(_ field: String) -> String {
        let words = field.split(separator: "_")
        return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }
            .joined()
    }

    /// Checks each field of `object` against `fields` (by either name); `unknown` hears the keys
    /// that name none.
    private static func checkFields(
        of object: [String: OpenJSON], _ fields: [String: Shape], path: String, unknown: (String) throws(FCMError) -> Void
    ) throws(FCMError) {
        var given: [String: String] = [:]
        for key in object.keys.sorted() {
            guard let field = fields[key] != nil ? key : fields.keys.first(where: { jsonName($0) == key }) else {
                try unknown(key)
                continue
            }
            if let earlier = given.updateValue(key, forKey: field) {
                throw .invalidArgument(
                    "Invalid JSON payload received. Field \"\(field)\" at '\(path)' is given twice, as \"\(earlier)\" and \"\(key)\".")
            }
            let value = object[key]!
            if value == .null { continue }
            try check(value, fields[field]!, path: "\(path).\(key)")
        }
    }

    private static func check(_ value: OpenJSON, _ shape: Shape, path: String) throws(FCMError) {
        func invalid(_ type: String) -> FCMError {
            let given = if case .string(let text) = value { ", \"\(text)\"" } else { "" }
            return .invalidArgument("Invalid value at '\(path)' (\(type))\(given)")
        }
        let (text, number): (String?, Double?) =
            switch value {
            case .string(let text): (text, nil)
            case .number(let number): (nil, number)
            default: (nil, nil)
            }
        switch shape {
        case .string:
            guard text != nil else { throw invalid("TYPE_STRING") }
        case .bool:
            guard case .bool = value else { throw invalid("TYPE_BOOL") }
        case .integer:
            // protobuf's JSON takes a whole number, or one written as a string
            guard text.flatMap({ Int32($0) }) != nil || number.map({ Int32(exactly: $0) != nil }) == true else {
                throw invalid("TYPE_INT32")
            }
        case .number:
            guard number != nil || text.flatMap({ Double($0) }) != nil else { throw invalid("TYPE_FLOAT") }
        case .duration:
            guard let text, isDuration(text) else { throw invalid("google.protobuf.Duration, seconds and an 's': \"120s\"") }
        case .timestamp:
            guard let text, isTimestamp(text) else {
                throw invalid("google.protobuf.Timestamp, RFC 3339: \"2026-11-28T10:00:00.123Z\"")
            }
        case .oneOf(let name, let values):
            // Google's parser matches an enum's name without regard to case, or takes its number
            let named = text.map { text in values.contains { $0.caseInsensitiveCompare(text) == .orderedSame } } ?? false
            guard named || number.map({ values.indices.contains(Int(exactly: $0) ?? -1) }) == true else {
                throw invalid("\(name): \(values.joined(separator: ", "))")
            }
        case .stringMap:
            guard case .object(let map) = value else { throw invalid("Map") }
            for key in map.keys.sorted() {
                guard case .string = map[key] else { throw .invalidArgument("Invalid value at '\(path).\(key)' (TYPE_STRING)") }
            }
        case .strings, .durations:
            guard case .array(let list) = value else { throw invalid("list") }
            let element: Shape = if case .strings = shape { .string } else { .duration }
            for item in list { try check(item, element, path: path + "[]") }
        case .anyObject:
            guard case .object = value else { throw invalid("google.protobuf.Struct") }
        case .fields(let name, let fields):
            guard case .object(let object) = value else { throw invalid(name) }
            try checkFields(of: object, fields, path: path) { key throws(FCMError) in
                throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(key)\" at '\(path)': Cannot find field.")
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

    /// `"2026-11-28T10:00:00Z"`, `"0001-01-01T00:00:00.000000000Z"` (.NET's unset time),
    /// `"2026-11-28T11:00:00.5+01:00"`: protobuf's JSON for a Timestamp, up to nine decimals.
    static func isTimestamp(_ text: String) -> Bool {
        let pattern = #/(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))/#
        guard let match = text.wholeMatch(of: pattern) else { return false }
        let (year, month, day) = (Int(match.1)!, Int(match.2)!, Int(match.3)!)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let days = calendar.date(from: DateComponents(year: year, month: month)).flatMap { calendar.range(of: .day, in: .month, for: $0) }
        return year >= 1 && (1...12).contains(month) && days?.contains(day) == true && Int(match.4)! < 24 && Int(match.5)! < 60
            && Int(match.6)! < 60 && (match.9.map { Int($0)! < 24 } ?? true) && (match.10.map { Int($0)! < 60 } ?? true)
    }
}
