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
