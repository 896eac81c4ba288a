import Backend
import Foundation
import Hummingbird
import HummingbirdTesting
import OutOfBand
import Phone
import PushService
import Testing
import WebApp

/// A phone's Firebase installation id (FID): shown with its token, a send target of the FCM
/// endpoint, rotated with the token.
@Suite(.timeLimit(.minutes(2))) struct FIDTargetRouteTests {
    struct Inbox: Decodable {
        let messages: [PushService.InboxMessage]
    }

    static func sendToFID(_ client: some TestClientProtocol, _ fid: String) async throws -> HTTPAnswer {
        try await client.send(
            .post, "/v1/projects/authphone/messages:send",
            json: ["message": ["fid": fid, "notification": ["title": "Log in?"], "data": ["k": "v"]]])
    }

    @Test func aPhoneShowsItsFIDAndASendToItArrives() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let fid = try #require(phone.fid)
            #expect(fid.count == 22)
            #expect(phone.fcmToken.hasPrefix(fid + ":APA91b"))
            #expect(try await client.phoneDetail(phone.id).fid == fid)
            let device = try await client.send(.get, "/api/phones/\(phone.id)/device-information").decode(DeviceInformationView.self)
            #expect(device.fid == fid)

            let sent = try await Self.sendToFID(client, fid)
            #expect(sent.status == .ok)
            let inbox = try await client.send(.get, "/api/phones/\(phone.id)/inbox").decode(Inbox.self).messages
            #expect(inbox.map(\.name) == [try sent.decode([String: String].self)["name"]])
        }
    }

    @Test func aRotatedTokenTakesItsFIDAlong() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let old = try #require(phone.fid)
            let rotated = try await client.send(.post, "/api/phones/\(phone.id)/fcm-token/rotate", json: ["retryPolicy": ["type": "none"]])
            #expect(rotated.status == .ok)
            let new = try #require(try await client.phoneDetail(phone.id).fid)
            #expect(new != old)
            #expect(try rotated.decode(DeviceChangeResult.self).deviceInformation.fid == new)

            let refused = try await Self.sendToFID(client, old)
            #expect(refused.status == .notFound)
            let error = try refused.decode(FCMError.Body.self).error
            #expect(error.status == "NOT_FOUND")
            #expect(error.details.first?.errorCode == "UNREGISTERED")
            #expect(error.details.first?.type == "type.googleapis.com/google.firebase.fcm.v1.FcmError")
            #expect(try await Self.sendToFID(client, new).status == .ok)
        }
    }

    @Test func twoTargetsAreRefusedAsFCMRefusesThem() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let answer = try await client.send(
                .post, "/v1/projects/authphone/messages:send",
                json: ["message": ["fid": try #require(phone.fid), "token": phone.fcmToken, "data": ["k": "v"]]])
            #expect(answer.status == .badRequest)
            let error = try answer.decode(FCMError.Body.self).error
            #expect(error.status == "INVALID_ARGUMENT")
            #expect(error.message.contains("Exactly one of token, topic, condition or fid"))
            #expect(try await client.send(.get, "/api/phones/\(phone.id)/inbox").decode(Inbox.self).messages.isEmpty)
        }
    }
}

/// A push pasted on the phone goes through the inbox as a delivered one does: its notification
/// shows, and opening it starts the operation.
@Suite(.timeLimit(.minutes(2))) struct PastedPushTests {
    struct Inbox: Decodable {
        let messages: [PushService.InboxMessage]
    }

    /// A login's push as a developer copies it from a device log: the data map and a banner.
    static func loginPush(_ client: some TestClientProtocol) async throws -> (BackendSession, [String: Any]) {
        let login = try await client.startSession("login", user: "alice")
        let payload = try OutOfBandDecoder.decode(qrText: login.qrText)
        return (login, ["data": PushMessage.data(for: payload), "notification": ["title": "Pasted login", "body": "b"]])
    }

    @Test func aPastedPushShowsItsNotificationAndOpensFromTheInbox() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let (login, push) = try await Self.loginPush(client)
            let answer = try await client.send(.post, "/api/phones/\(phoneId)/inbox", json: ["push": push])
            #expect(answer.status == .created)
            let received = try answer.decode(PushService.InboxMessage.self)
            #expect(received.message.notification?.title == "Pasted login")
            var message = try await screen.next()
            while message.type != "notification" { message = try await screen.next() }
            #expect(message.notification?.id == received.id)
            // nothing starts until the user opens it
            #expect(try await client.phoneDetail(phoneId).flow?.session?.id != login.id)
            #expect(try await client.send(.get, "/api/phones/\(phoneId)/inbox").decode(Inbox.self).messages.map(\.id) == [received.id])

            let opened = try await client.send(.post, "/api/phones/\(phoneId)/inbox/\(received.id)/open", json: [:])
            #expect(opened.status == .accepted)
            #expect(try await screen.settledFlow().session?.id == login.id)
            #expect(try await client.send(.get, "/api/phones/\(phoneId)/inbox").decode(Inbox.self).messages.isEmpty)
        }
    }

    /// As a delivered push: a phone set to open pushes at once opens a pasted one by itself.
    @Test func aPhoneThatOpensPushesAtOnceOpensAPastedOne() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            _ = try await client.send(.put, "/api/phones/\(phoneId)/settings", json: ["openPushesAtOnce": true])
            let (login, push) = try await Self.loginPush(client)
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/inbox", json: ["push": push]).status == .created)
            #expect(try await screen.settledFlow().session?.id == login.id)
        }
    }

    @Test func badPastesAreRefusedAndLeaveTheInboxAlone() async throws {
        try await withEnrolledPhone { client, _, phoneId in
            let (_, push) = try await Self.loginPush(client)
            let cases: [([String: Any], HTTPFields, HTTPResponse.Status, String)] = [
                (["push": ["data": ["k": "v"]]], [.contentType: "application/json"], .badRequest, "MISSING_FIELD"),
                (["push": push, "qr": "x"], [.contentType: "application/json"], .badRequest, "INVALID_FIELD"),
                (["push": 5], [.contentType: "application/json"], .badRequest, "INVALID_FIELD"),
                (["push": push], [.contentType: "application/json", .origin: "http://attacker.example"], .forbidden, "FORBIDDEN_ORIGIN"),
            ]
            for (body, headers, status, code) in cases {
                let answer = try await client.send(.post, "/api/phones/\(phoneId)/inbox", json: body, headers: headers)
                #expect(answer.status == status, "\(body)")
                #expect(answer.errorCode == code, "\(body)")
            }
            #expect(try await client.send(.post, "/api/phones/nobody/inbox", json: ["push": push]).status == .notFound)
            #expect(try await client.send(.get, "/api/phones/\(phoneId)/inbox").decode(Inbox.self).messages.isEmpty)
        }
    }
}
