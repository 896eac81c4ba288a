import Foundation
import OutOfBand
import Testing

@Suite struct PushDecoderTests {
    let payload = OutOfBandPayload(redeemData: .init(token: "tok", redeemURL: URL(string: "http://127.0.0.1:8080/api/backend/redeem")!))

    func json(_ object: [String: Any]) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: object))
    }

    @Test func theSendRequestShapeDecodes() throws {
        let message = try PushDecoder.decode(
            json: json([
                "message": [
                    "token": "t", "data": PushMessage.data(for: payload),
                    "notification": ["title": "T", "body": "B"],
                ]
            ]))
        #expect(try message.payload() == payload)
        #expect(message.notification?.title == "T")
    }

    @Test func theReceivedShapeDecodes() throws {
        let message = try PushDecoder.decode(json: json(["from": "authphone", "messageId": "m1", "data": PushMessage.data(for: payload)]))
        #expect(message.messageId == "m1")
        #expect(message.from == "authphone")
        #expect(try message.payload() == payload)
    }

    /// What `RemoteMessage.getData()` logs on Android: the data map on its own.
    @Test func androidsDataMapOnItsOwnDecodes() throws {
        let message = try PushDecoder.decode(json: json(PushMessage.data(for: payload).merging(["campaign": "x"]) { a, _ in a }))
        #expect(try message.payload() == payload)
        #expect(message.data["campaign"] == "x")
        #expect(message.notification == nil)
    }

    /// What an iOS app's `userInfo` holds: the data keys flat beside `aps` and FCM's own keys.
    @Test func iOSsUserInfoDecodes() throws {
        var userInfo: [String: Any] = PushMessage.data(for: payload)
        userInfo["aps"] = ["alert": ["title": "Log in?", "body": "Confirm on this phone."], "sound": "default"]
        userInfo["gcm.message_id"] = "1700000000000001"
        userInfo["google.c.a.e"] = "1"
        userInfo["google.c.sender.id"] = "123456789"
        let message = try PushDecoder.decode(json: json(userInfo))
        #expect(try message.payload() == payload)
        #expect(message.messageId == "1700000000000001")
        #expect(message.notification == PushMessage.Notification(title: "Log in?", body: "Confirm on this phone."))
        #expect(message.data.keys.sorted() == ["nma_data", "nma_data_content_type", "nma_data_version"])
        // a plain-string alert is the banner's body
        userInfo["aps"] = ["alert": "Confirm on this phone."]
        #expect(try PushDecoder.decode(json: json(userInfo)).notification == PushMessage.Notification(title: nil, body: "Confirm on this phone."))
        // data values are strings in every shape
        userInfo["nma_data_version"] = 1
        #expect(throws: OutOfBandError.self) { try PushDecoder.decode(json: json(userInfo)) }
    }

    @Test func otherDataKeysAreLeftAlone() throws {
        var data = PushMessage.data(for: payload)
        data["campaign"] = "x"
        #expect(try PushDecoder.decode(json: json(["data": data])).payload() == payload)
    }

    @Test func badPushesGiveTheirCode() {
        var nonString: [String: Any] = PushMessage.data(for: payload)
        nonString["nma_data_version"] = 1
        var jose = PushMessage.data(for: payload)
        jose["nma_data_content_type"] = "application/jose"
        let cases: [([UInt8], String)] = [
            ([], "EMPTY_PAYLOAD"),
            (Array("{".utf8), "MALFORMED_PAYLOAD"),
            (json(["notification": ["title": "t"]]), "MISSING_FIELD"),
            (json(["data": ["k": "v"]]), "MISSING_FIELD"),
            (json(["data": nonString]), "INVALID_FIELD"),
            (json(["message": "x"]), "INVALID_FIELD"),
            (json(["data": jose]), "UNSUPPORTED_CONTENT_TYPE"),
            // a key twice, as FCM refuses it
            (Array(#"{"data": {"k": "v", "k": "w"}}"#.utf8), "MALFORMED_PAYLOAD"),
            (Array("[]".utf8), "MALFORMED_PAYLOAD"),
        ]
        for (bytes, code) in cases {
            do {
                _ = try PushDecoder.decode(json: bytes).payload()
                Issue.record("accepted \(String(decoding: bytes, as: UTF8.self))")
            } catch {
                #expect(error.code == code, "\(error.message)")
            }
        }
    }
}
