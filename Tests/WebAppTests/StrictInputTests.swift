import BackendAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import Testing
import WebApp

/// Every route reads its body strictly: a key twice, a trailing comma, a field it does not take
/// (even one sent as null), a body where it takes none are all 400 and change nothing.
struct StrictInputTests {
    func raw(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ text: String) async throws -> HTTPAnswer {
        try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: ByteBuffer(string: text)) {
            HTTPAnswer(status: $0.status, body: Data(buffer: $0.body))
        }
    }

    func message(_ answer: HTTPAnswer) throws -> String { try answer.decode(WireErrorBody.self).error.message }

    @Test func malformedAndUnknownFieldsAreRefusedAndChangeNothing() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            for (method, uri, text, code, says) in [
                (HTTPRequest.Method.post, "/api/phones", #"{"name": "a", "name": "b"}"#, "MALFORMED_JSON", "the key 'name' appears twice"),
                (.post, "/api/phones", #"{"name": "a",}"#, "MALFORMED_JSON", "a trailing comma"),
                (.post, "/api/phones", #"{"name": "a", "admin": {"level": [1]}}"#, "UNKNOWN_FIELD", "a field 'admin'"),
                (.post, "/api/phones", #"{"name": "a", "nmae": 5}"#, "UNKNOWN_FIELD", "a field 'nmae'"),
                (.post, "/api/phones", #"{"name": "x", "zzz": null}"#, "UNKNOWN_FIELD", "a field 'zzz'"),
                (.put, "/api/phones/\(phoneId)/settings", #"{"openPushesAtOnce": true, "pinLenght": null}"#, "UNKNOWN_FIELD", "a field 'pinLenght'"),
                (.put, "/api/phones/\(phoneId)/settings", #"{"openPushesAtOnce": true, "pinLenght": 4}"#, "UNKNOWN_FIELD", "a field 'pinLenght'"),
                (
                    .put, "/api/phones/\(phoneId)/device-information", #"{"name": "x", "retryPolicy": {"type": "none", "tries": 9}}"#,
                    "UNKNOWN_FIELD", "a field 'retryPolicy.tries'"
                ),
                (
                    .put, "/api/phones/\(phoneId)/device-information", #"{"name": "x", "retryPolicy": {"type": "none", "tries": null}}"#,
                    "UNKNOWN_FIELD", "a field 'retryPolicy.tries'"
                ),
                (.put, "/api/backend/second-factor-policy", #"{"maxAttempts": 5, "maxAttempts": 100}"#, "MALFORMED_JSON", "appears twice"),
                (.post, "/api/backend/sessions", #"{"type": "login", "userId": "alice", "userId": "bob"}"#, "MALFORMED_JSON", "appears twice"),
                (.post, "/api/phones/\(phoneId)/oob", #"{"qr": "x", "qr": "y"}"#, "MALFORMED_JSON", "appears twice"),
                (.post, "/api/phones/\(phoneId)/sensor/features", #"{"features": 3}"#, "BODY_NOT_EXPECTED", "takes no request body"),
                (.delete, "/api/phones/\(phoneId)/inbox", "junk", "BODY_NOT_EXPECTED", "takes no request body"),
                (.delete, "/api/phones/\(phoneId)/accounts", #"{"all": true}"#, "BODY_NOT_EXPECTED", "takes no request body"),
            ] {
                let answer = try await raw(client, method, uri, text)
                #expect(answer.status == .badRequest, "\(uri) \(text)")
                #expect(answer.errorCode == code, "\(uri) \(text)")
                let said = try message(answer)
                #expect(said.contains(says), "\(said)")
            }
            #expect(try await client.send(.get, "/api/phones").decode(PhoneList.self).phones.count == 1)
            let phone = try await client.phoneDetail(phoneId)
            #expect(phone.accounts.count == 1 && phone.name == "Test phone" && !phone.settings.openPushesAtOnce)
            #expect(phone.biometrics.enrolledFeatures == 1)
            let policy = try JSONSerialization.jsonObject(with: try await client.send(.get, "/api/backend/second-factor-policy").body)
            #expect((policy as? [String: Any])?["maxAttempts"] as? Int == 3)
            // the pages' empty object is no body
            #expect(try await raw(client, .post, "/api/phones/\(phoneId)/sensor/features", "{}").status == .ok)
        }
    }

    /// A field the route takes may be sent as null, as an absent one.
    @Test func aFieldTheRouteTakesMayBeNull() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            let answer = try await raw(
                client, .put, "/api/phones/\(phoneId)/settings", #"{"openPushesAtOnce": true, "pinLength": null, "pinChangeStyle": null}"#)
            #expect(answer.status == .ok)
            #expect(try await client.phoneDetail(phoneId).settings.openPushesAtOnce)
        }
    }

    @Test func theScreensMessagesAreReadStrictlyToo() async throws {
        try await withEnrolledPhone { _, screen, _ in
            for text in [
                #"{"action": "cancel", "action": "confirmSession"}"#, #"{"action": "cancel", "pinn": "1"}"#, #"{"action": "cancel",}"#,
                #"{"action": "cancel", "zzz": null}"#,
            ] {
                try await screen.outbound.write(.text(text))
                #expect(try await screen.next().error?.code == "MALFORMED_MESSAGE", "\(text)")
            }
        }
    }

    /// FCM's own JSON reading: no key twice, and `validate_only` is true or false, never 0 or 1.
    @Test func theFCMEndpointReadsAsStrictlyAsFCM() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let send = "/v1/projects/authphone/messages:send"
            for text in [
                #"{"message": {"token": "\#(phone.fcmToken)", "token": "other"}}"#,
                #"{"message": {"token": "\#(phone.fcmToken)"}, "validate_only": 1}"#,
                #"{"message": {"token": "\#(phone.fcmToken)"}, "validate_only": 0}"#,
                #"{"message": {"token": "\#(phone.fcmToken)", "data": {"a": "b",}}}"#,
            ] {
                let answer = try await raw(client, .post, send, text)
                #expect(answer.status == .badRequest, "\(text)")
                let error = try JSONSerialization.jsonObject(with: answer.body) as? [String: [String: Any]]
                #expect(error?["error"]?["status"] as? String == "INVALID_ARGUMENT")
            }
            #expect(try await raw(client, .post, send, #"{"message": {"token": "\#(phone.fcmToken)"}, "validate_only": true}"#).status == .ok)
            #expect(try await client.send(.get, "/api/phones/\(phone.id)/inbox").body.count < 20)
        }
    }
}
