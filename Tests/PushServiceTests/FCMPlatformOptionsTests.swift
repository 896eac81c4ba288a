import Foundation
import PushService
import Testing

/// The platform blocks of an FCM message, checked against FCM's v1 schema: privacyIDEA's message
/// passes whole, a misspelt or mistyped field is INVALID_ARGUMENT naming where.
@Suite struct FCMPlatformOptionsTests {
    /// privacyIDEA 3.14's message (`FirebaseProvider.submit_message`), its data as `pushtoken.py` builds it.
    static let privacyIDEAData = [
        "nonce": "BWQRJDSUG2FVQQXKYCVKHWYK5YHZTGIB4JSSJDHV2B5MT3DDVVYPWY4JG2JFJN4F5FWZGJAXY6YDONK5IJ5VNXDUYPBQVU3EPN4AR5A",
        "question": "Do you want to confirm the login?", "serial": "PIPU0001C0A3", "title": "privacyIDEA",
        "sslverify": "0", "url": "http://127.0.0.1:5000/ttype/push", "signature": "Q6MIJ6QXY3TH5BJAMB5VL5DUSKEA2TC3NXU4DRFCZDTNJAYCKHYA",
        "require_presence": "0", "version": "1", "capabilities": #"{"presence": true}"#, "capabilities_signature": "ZXhhbXBsZQ",
    ]

    static func privacyIDEAMessage(token: String) throws -> [UInt8] {
        let message: [String: Any] = [
            "message": [
                "data": privacyIDEAData, "token": token,
                "notification": ["title": privacyIDEAData["title"]!, "body": privacyIDEAData["question"]!],
                "android": ["priority": "HIGH", "ttl": "120s", "fcm_options": ["analytics_label": "AndroidPushToken"]],
                "apns": [
                    "headers": [
                        "apns-priority": "10", "apns-push-type": "alert", "apns-collapse-id": "privacyidea.pushtoken",
                        "apns-expiration": "1767225600",
                    ],
                    "payload": [
                        "aps": [
                            "alert": ["title": privacyIDEAData["title"]!, "body": privacyIDEAData["question"]!], "sound": "default",
                            "category": "PUSH_AUTHENTICATION",
                        ]
                    ],
                    "fcm_options": ["analytics_label": "iOSPushToken"],
                ],
            ]
        ]
        return Array(try JSONSerialization.data(withJSONObject: message))
    }

    @Test func privacyIDEAsMessagePassesWithItsDataWhole() throws {
        let request = try FCMSendRequest.parse(try Self.privacyIDEAMessage(token: "dev1:APA91b"))
        #expect(request.message.data == Self.privacyIDEAData)
        #expect(request.message.notification == .init(title: "privacyIDEA", body: "Do you want to confirm the login?"))
    }

    @Test func privacyIDEAsMessageReachesTheInboxWithItsDataWhole() async throws {
        let service = PushService(store: try .inMemory())
        try await service.register(token: "dev1:APA91b")
        let accepted = try await service.send(project: service.project, body: try Self.privacyIDEAMessage(token: "dev1:APA91b"))
        #expect(accepted.fate == .delivered)
        let delivered = try #require(try await service.inbox(token: "dev1:APA91b").first)
        #expect(delivered.message.data == Self.privacyIDEAData)
        #expect(delivered.message.notification?.body == "Do you want to confirm the login?")
    }

    @Test func everyBlockFCMDefinesIsTaken() throws {
        let body = #"""
            {"message": {"token": "t", "fcm_options": {"analytics_label": "l"},
             "android": {"collapse_key": "c", "priority": "NORMAL", "ttl": "3.5s", "restricted_package_name": "p", "data": {"k": "v"},
                         "direct_boot_ok": true, "bandwidth_constrained_ok": false, "restricted_satellite_ok": false,
                         "notification": {"title": "t", "body_loc_args": ["a"], "sticky": true, "notification_priority": "PRIORITY_HIGH",
                                          "vibrate_timings": ["0.5s"], "notification_count": 3, "visibility": "PRIVATE",
                                          "light_settings": {"color": {"red": 1, "green": 0, "blue": 0}, "light_on_duration": "1s"}}},
             "apns": {"headers": {}, "payload": {"aps": {"content-available": 1}}, "fcm_options": {"image": "https://x"}, "live_activity_token": "a"},
             "webpush": {"headers": {"TTL": "60"}, "data": {}, "notification": {"requireInteraction": true},
                         "fcm_options": {"link": "https://x", "analytics_label": "w"}}}}
            """#
        _ = try FCMSendRequest.parse(Array(body.utf8))
    }

    /// How the Admin SDKs write what FCM takes: enums in lower case (Python, Node and .NET's
    /// `priority`, Java's `visibility` and `proxy`) or by number, floats in a light's colour,
    /// each SDK's event time (Python's microseconds, Node's `toISOString`, Java's and Go's nine
    /// digits, .NET's unset `0001-01-01`), a TTL with nanoseconds, JSON names and `null`.
    static let adminSDKSpellings: [String] = [
        #"{"priority": "high", "ttl": "3600s"}"#,
        #"{"priority": "normal", "ttl": "3600.500000000s"}"#,
        #"{"priority": 1}"#,
        #"{"notification": {"notification_priority": "PRIORITY_HIGH", "visibility": "private", "proxy": "if_priority_lowered"}}"#,
        #"{"notification": {"visibility": "PUBLIC", "notification_priority": 0, "proxy": "Allow"}}"#,
        #"{"notification": {"light_settings": {"color": {"red": 0.2, "green": 0.4, "blue": 1.0, "alpha": 1.0}, "light_on_duration": "0.200000000s", "light_off_duration": "0.3s"}}}"#,
        #"{"notification": {"light_settings": {"color": {"red": "0.5", "green": 0, "blue": 1}}}}"#,
        #"{"notification": {"event_time": "2026-11-28T10:15:30.123456Z", "vibrate_timings": ["0.100000000s", "1s"]}}"#,
        #"{"notification": {"event_time": "2026-11-28T10:15:30.123Z"}}"#,
        #"{"notification": {"event_time": "2026-11-28T10:15:30.123000000Z"}}"#,
        #"{"notification": {"event_time": "0001-01-01T00:00:00.000000000Z", "sticky": false, "local_only": false}}"#,
        #"{"notification": {"event_time": "2026-11-28T11:15:30+01:00", "notification_count": "7"}}"#,
        #"{"collapseKey": "c", "restrictedPackageName": "p", "directBootOk": true, "fcmOptions": {"analyticsLabel": "l"}}"#,
        #"{"notification": {"channelId": "auth", "clickAction": "OPEN", "lightSettings": {"lightOnDuration": "1s"}}}"#,
        #"{"priority": null, "ttl": null, "notification": {"title": null}}"#,
    ]

    @Test(arguments: adminSDKSpellings)
    func whatTheAdminSDKsWriteIsTaken(_ android: String) throws {
        _ = try FCMSendRequest.parse(Array(#"{"message": {"token": "t", "android": \#(android)}}"#.utf8))
    }

    /// The Node.js Admin SDK renames only some fields to their proto names and leaves the rest as
    /// its own camelCase (`fcmOptions`, `directBootOk`, `analyticsLabel`, `liveActivityToken`):
    /// FCM takes both, by the JSON names protobuf gives them (`messaging-internal.ts`).
    @Test func theNodeSDKsMixOfNamesIsTaken() throws {
        let body = #"""
            {"message": {"token": "t", "data": {"k": "v"}, "fcmOptions": {"analyticsLabel": "m"},
             "android": {"collapse_key": "c", "restricted_package_name": "p", "priority": "high", "ttl": "3600.5s",
                         "fcmOptions": {"analyticsLabel": "a"}, "directBootOk": true,
                         "notification": {"click_action": "OPEN", "channel_id": "auth", "image": "https://x/i.png",
                                          "event_time": "2026-11-28T10:15:30.123Z", "local_only": false,
                                          "notification_priority": "PRIORITY_HIGH", "visibility": "PRIVATE", "notification_count": 3,
                                          "vibrate_timings": ["0.100000000s", "1s"], "sticky": true, "ticker": "t",
                                          "light_settings": {"color": {"red": 0.2, "green": 0.4, "blue": 0.6, "alpha": 1},
                                                             "light_on_duration": "0.200000000s", "light_off_duration": "0.3s"}}},
             "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"content-available": 1, "thread-id": "x"}},
                      "fcmOptions": {"analyticsLabel": "i", "image": "https://x/i.png"}, "liveActivityToken": "lat"},
             "webpush": {"headers": {"Urgency": "high"}, "fcmOptions": {"link": "https://x/login"},
                         "notification": {"title": "t", "actions": [{"action": "ok", "title": "OK"}]}}}}
            """#
        #expect(try FCMSendRequest.parse(Array(body.utf8)).message.data == ["k": "v"])
    }

    @Test func aMessageLevelFieldByItsJSONNameIsTaken() throws {
        _ = try FCMSendRequest.parse(Array(#"{"message": {"token": "t", "fcmOptions": {"analyticsLabel": "l"}}}"#.utf8))
    }

    static let refused: [(String, String)] = [
        (#"{"priority": "URGENT"}"#, "'message.android.priority' (AndroidMessagePriority: NORMAL, HIGH), \"URGENT\""),
        (#"{"ttl": "120"}"#, "'message.android.ttl' (google.protobuf.Duration"),
        (#"{"ttl": 120}"#, "'message.android.ttl'"),
        (#"{"ttl": "-1s"}"#, "'message.android.ttl'"),
        (#"{"priority": "HIGH", "time_to_live": "120s"}"#, #"Unknown name "time_to_live" at 'message.android'"#),
        (#"{"direct_boot_ok": "yes"}"#, "'message.android.direct_boot_ok' (TYPE_BOOL)"),
        (#"{"direct_boot_ok": 1}"#, "'message.android.direct_boot_ok' (TYPE_BOOL)"),
        (#"{"data": {"n": 1}}"#, "'message.android.data.n' (TYPE_STRING)"),
        (#"{"fcm_options": {"analytics_label": "l", "link": "x"}}"#, #"Unknown name "link" at 'message.android.fcm_options'"#),
        (#"{"notification": {"notification_count": 1.5}}"#, "'message.android.notification.notification_count' (TYPE_INT32)"),
        (#"{"notification": {"vibrate_timings": ["1"]}}"#, "'message.android.notification.vibrate_timings[]'"),
        (##"{"notification": {"colour": "#fff"}}"##, #"Unknown name "colour""#),
        (#"[]"#, "'message.android' (AndroidConfig)"),
        (#"{"priority": "highest"}"#, "'message.android.priority' (AndroidMessagePriority: NORMAL, HIGH), \"highest\""),
        (#"{"priority": 2}"#, "'message.android.priority' (AndroidMessagePriority"),
        (#"{"priority": true}"#, "'message.android.priority' (AndroidMessagePriority"),
        (#"{"notification": {"visibility": "hidden"}}"#, "'message.android.notification.visibility' (Visibility"),
        (
            #"{"notification": {"light_settings": {"color": {"red": "bright"}}}}"#,
            "'message.android.notification.light_settings.color.red' (TYPE_FLOAT)"
        ),
        (#"{"notification": {"light_settings": {"color": {"red": true}}}}"#, "'message.android.notification.light_settings.color.red' (TYPE_FLOAT)"),
        (#"{"notification": {"event_time": "yesterday"}}"#, "'message.android.notification.event_time' (google.protobuf.Timestamp"),
        (#"{"notification": {"event_time": "2026-02-30T10:00:00Z"}}"#, "'message.android.notification.event_time' (google.protobuf.Timestamp"),
        (#"{"notification": {"event_time": "2026-11-28T10:00:00"}}"#, "'message.android.notification.event_time' (google.protobuf.Timestamp"),
        (#"{"notification": {"event_time": "2026-11-28T10:00:00.1234567890Z"}}"#, "'message.android.notification.event_time'"),
        (#"{"notification": {"event_time": 1767225600}}"#, "'message.android.notification.event_time' (google.protobuf.Timestamp"),
        (#"{"ttl": "3600s", "collapse_key": "a", "collapseKey": "b"}"#, #"Field "collapse_key" at 'message.android' is given twice"#),
        (#"{"collapse_Key": "a"}"#, #"Unknown name "collapse_Key" at 'message.android'"#),
    ]

    @Test(arguments: refused)
    func misspeltAndMistypedAndroidFieldsAreRefused(_ android: String, _ mentions: String) {
        let body = #"{"message": {"token": "t", "android": \#(android)}}"#
        let refusal = #expect(throws: FCMError.self) { try FCMSendRequest.parse(Array(body.utf8)) }
        #expect(refusal?.errorCode == "INVALID_ARGUMENT")
        #expect(refusal?.message.contains(mentions) == true, "\(refusal?.message ?? "")")
    }

    @Test func theOtherBlocksAreCheckedToo() {
        let cases: [(String, String)] = [
            (#""apns": {"headers": {"apns-expiration": 1767225600}}"#, "'message.apns.headers.apns-expiration' (TYPE_STRING)"),
            (#""apns": {"payload": "aps"}"#, "'message.apns.payload' (google.protobuf.Struct)"),
            (#""apns": {"fcm_options": {"analytics_label": 5}}"#, "'message.apns.fcm_options.analytics_label' (TYPE_STRING)"),
            (#""webpush": {"fcm_options": {"link": 5}}"#, "'message.webpush.fcm_options.link' (TYPE_STRING)"),
            (#""fcm_options": {"analytics_label": "l", "image": "x"}"#, #"Unknown name "image" at 'message.fcm_options'"#),
        ]
        for (block, mentions) in cases {
            let body = #"{"message": {"token": "t", \#(block)}}"#
            let refusal = #expect(throws: FCMError.self) { try FCMSendRequest.parse(Array(body.utf8)) }
            #expect(refusal?.message.contains(mentions) == true, "\(refusal?.message ?? "")")
        }
    }
}
