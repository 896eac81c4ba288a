import BackendAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import OutOfBand
import Phone
import Testing
import WebApp

/// Bad input of every kind gets a stable code and a message, and changes nothing.
@Suite(.timeLimit(.minutes(2))) struct BadInputTests {
    @Test func malformedPayloadsAreRefusedAndStartNothing() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let cases: [([String: Any], String)] = [
                (["qr": "not a payload"], "MALFORMED_PAYLOAD"),
                (["qr": ""], "EMPTY_PAYLOAD"),
                (["link": "javascript:alert(1)"], "INVALID_LINK"),
                (["qr": "x", "link": "y"], "INVALID_FIELD"),
                ([:], "INVALID_FIELD"),
                (["qr": 42], "INVALID_FIELD"),
                (["push": ["data": ["k": "v"]]], "MISSING_FIELD"),
                (["push": ["message": ["data": ["nma_data": 5]]]], "INVALID_FIELD"),
            ]
            for (body, code) in cases {
                let answer = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.errorCode == code, "\(body)")
            }
            // nextAuth's numbers: a payload that does not parse is 32, one of a type the phone does not take 33.
            let typed = #"{"nma_data": {"token": "t", "redeem_url": "http://h/r"}, "nma_data_content_type": "%@", "nma_data_version": "%@"}"#
            for (text, sdkCode) in [
                ("not a payload", 32), (String(format: typed, "application/jose", "1"), 33), (String(format: typed, "application/json", "2"), 33),
            ] {
                let answer = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": text])
                #expect(try answer.decode(ErrorWithSDKCode.self).error.sdkCode == sdkCode, "\(text)")
            }
            #expect(try await client.phoneDetail(phone.id).flow == nil)
        }
    }

    @Test func aForeignRedeemURLIsRefusedBeforeAnyConnection() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            // If the phone tried to connect this would be a connection error (502), not 403.
            let payload = OutOfBandPayload(redeemData: .init(token: "t", redeemURL: URL(string: "http://no-such-host.invalid/redeem")!))
            let answer = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": payload.qrText])
            #expect(answer.status == .forbidden)
            #expect(answer.errorCode == "SERVER_NOT_ALLOWED")
            #expect(try answer.decode(ErrorWithSDKCode.self).error.sdkCode == 52)
        }
    }

    /// A payload may make the phone post to the backend's redeem route only: another route of the
    /// allowed server (here: rotating another phone's FCM token) is refused before any request,
    /// whether the payload comes as QR text, as a deep link or as a push the user opens.
    @Test func aRedeemURLNamingAnotherRouteOfTheAllowedServerIsRefused() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let attacker = try await client.createPhone("attacker")
            let victim = try await client.createPhone("victim")
            let session = try await client.startSession("enrol", user: "mallory")
            let genuine = try OutOfBandDecoder.decode(qrText: session.qrText).redeemData.redeemURL.absoluteString
            let base = String(genuine.dropLast(BackendRoutes.redeem.count))
            let targets = [
                "\(base)/api/phones/\(victim.id)/fcm-token/rotate", "\(base)/api/backend/redeem/../../phones/\(victim.id)/fcm-token/rotate",
                "\(base)/api/backend/redeem?then=rotate", "\(base)/api/backend/redeem/", "\(base)/API/backend/redeem",
            ]
            for target in targets {
                let payload = OutOfBandPayload(redeemData: .init(token: "t", redeemURL: try #require(URL(string: target))))
                for body in [["qr": payload.qrText], ["link": payload.deepLink]] {
                    let answer = try await client.send(.post, "/api/phones/\(attacker.id)/oob", json: body)
                    #expect(answer.status == .forbidden, "\(target)")
                    #expect(answer.errorCode == "REDEEM_URL_NOT_ALLOWED")
                    #expect(try answer.decode(ErrorWithSDKCode.self).error.sdkCode == 52)
                }
            }
            let pushed = OutOfBandPayload(redeemData: .init(token: "t", redeemURL: try #require(URL(string: targets[0]))))
            let sent = try await client.send(
                .post, "/v1/projects/authphone/messages:send",
                json: [
                    "message": ["token": attacker.fcmToken, "data": PushMessage.data(for: pushed)]
                ])
            #expect(sent.status == .ok)
            let inbox = try await client.send(.get, "/api/phones/\(attacker.id)/inbox").decode(PushDeliveryTests.Inbox.self)
            let opened = try await client.send(.post, "/api/phones/\(attacker.id)/inbox/\(try #require(inbox.messages.first).id)/open")
            #expect(opened.errorCode == "REDEEM_URL_NOT_ALLOWED")
            #expect(try await client.phoneDetail(victim.id).fcmToken == victim.fcmToken)
            #expect(try await client.backendSession(session.id).status == .pending)
        }
    }

    /// A NUL (which SQLite would cut the name at), other control characters and invisible
    /// formatting such as a right-to-left override are refused in every name, naming the field.
    @Test func namesWithHiddenCharactersAreRefusedAndNothingIsStored() async throws {
        let hidden = ["victim\u{0}evil", "bob\u{7}", "eve\u{202E}lanigiro", "a\u{2066}b", "zero\u{200B}width", "line\u{2028}break", "tab\there"]
        try await withEnrolledPhone { client, _, phoneId in
            for name in hidden {
                let phone = try await client.send(.post, "/api/phones", json: ["name": name])
                #expect(phone.status == .badRequest, "\(name.debugDescription)")
                #expect(try phone.decode(WireErrorBody.self).error.message.hasPrefix("the field 'name' "))
                for (field, body) in [
                    ("userId", ["type": "enrol", "userId": name]),
                    ("displayName", ["type": "enrol", "userId": "carol", "displayName": name]),
                ] {
                    let session = try await client.send(.post, "/api/backend/sessions", json: body)
                    #expect(session.status == .badRequest, "\(field) \(name.debugDescription)")
                    #expect(try session.decode(WireErrorBody.self).error.message.hasPrefix("the field '\(field)' "))
                }
                let rename = try await client.send(.put, "/api/phones/\(phoneId)/device-information", json: ["name": name])
                #expect(rename.status == .badRequest)
                #expect(try rename.decode(WireErrorBody.self).error.message.hasPrefix("the field 'name' "))
            }
            #expect(try await client.send(.get, "/api/phones").decode(PhoneList.self).phones.count == 1)
            let sessions = try JSONSerialization.jsonObject(with: try await client.send(.get, "/api/backend/sessions").body) as? [String: Any]
            #expect((sessions?["sessions"] as? [Any])?.count == 1)  // alice's enrolment alone
            #expect(try await client.phoneDetail(phoneId).name == "Test phone")
        }
    }

    @Test func unknownTokensAndSecondFlowsAreRefused() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let first = try await client.startSession("enrol", user: "dave")
            let second = try await client.startSession("enrol", user: "erin")
            // A well-formed payload with a token the backend never issued.
            let forged = try OutOfBandDecoder.decode(qrText: first.qrText)
            let unknown = OutOfBandPayload(redeemData: .init(token: "forged", redeemURL: forged.redeemData.redeemURL))
            let refused = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": unknown.qrText])
            #expect(refused.status == .notFound)
            #expect(refused.errorCode == "TOKEN_UNKNOWN")
            #expect(try refused.decode(ErrorWithSDKCode.self).error.sdkCode == 64)

            #expect(try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": first.qrText]).status == .accepted)
            let busy = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": second.qrText])
            #expect(busy.status == .conflict)
            #expect(busy.errorCode == "FLOW_ACTIVE")
            // The refused payload's session was not touched.
            #expect(try await client.backendSession(second.id).status == .pending)
        }
    }

    @Test func crossSiteAndNonJSONRequestsAreRefused() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let foreign = try await client.send(
                .post, "/api/phones", json: ["name": "x"],
                headers: [.contentType: "application/json", .origin: "http://evil.example"])
            #expect(foreign.status == .forbidden)
            #expect(foreign.errorCode == "FORBIDDEN_ORIGIN")
            let form = try await client.send(
                .post, "/api/phones", json: ["name": "x"],
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(form.status == .unsupportedMediaType)
            let huge = try await client.send(.post, "/api/phones", json: ["name": String(repeating: "x", count: 100_000)])
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorCode == "BODY_TOO_LARGE")
            let phones = try await client.send(.get, "/api/phones").decode(PhoneList.self)
            #expect(phones.phones.isEmpty)
        }
    }

    @Test func theScreenRefusesAForeignOriginAndMalformedMessages() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            await #expect(throws: (any Error).self) {
                try await client.ws(
                    "/api/phones/\(phone.id)/stream",
                    configuration: .init(additionalHeaders: [.origin: "http://evil.example"])
                ) { _, _, _ in }
            }
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                for (message, code) in [
                    ("nonsense", "MALFORMED_MESSAGE"), (#"{"action": "fly"}"#, "MALFORMED_MESSAGE"),
                    (#"{"action": "cancel"}"#, "NO_ACTIVE_FLOW"),
                    (#"{"action": "inputSecondFactor"}"#, "MISSING_FIELD"),
                ] {
                    try await outbound.write(.text(message))
                    let answer = try await screen.next()
                    #expect(answer.type == "error")
                    #expect(answer.error?.code == code, "\(message)")
                }
                // A frame over the 16 KiB limit closes the connection.
                try await outbound.write(.text(String(repeating: "x", count: 20 * 1024)))
                await #expect(throws: Screen.ScreenClosed.self) { _ = try await screen.next() }
            }
        }
    }
}

struct ErrorWithSDKCode: Decodable {
    struct Detail: Decodable {
        let code: String
        let sdkCode: Int?
    }
    let error: Detail
}

struct PhoneList: Decodable {
    let phones: [PhoneSummary]
}
