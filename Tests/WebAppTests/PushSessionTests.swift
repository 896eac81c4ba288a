import Backend
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import PushService
import Testing
import WebApp

/// The console's "Push to phone": a session shown as a QR code goes to one phone through the
/// FCM endpoint, and what cannot be pushed is refused with nothing changed.
@Suite(.timeLimit(.minutes(2))) struct PushSessionTests {
    @Test func aQRLoginPushedToAPhoneReachesItsScreenAsANotification() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let login = try await client.startSession("login", user: "alice")
            #expect(login.delivery == "qr")
            let token = try await client.phoneDetail(phoneId).fcmToken
            let pushed = try await client.send(.post, "/api/backend/sessions/\(login.id)/push", json: ["pushToken": token])
            #expect(pushed.status == .ok)
            let session = try pushed.decode(BackendSession.self)
            #expect(session.delivery == "push")
            #expect(session.dispatch == "dispatched")
            #expect(session.qrText == login.qrText)
            var message = try await screen.next()
            while message.type != "notification" { message = try await screen.next() }
            let notification = try #require(message.notification)
            let opened = try await client.send(.post, "/api/phones/\(phoneId)/inbox/\(notification.id)/open", json: [:])
            #expect(opened.status == .accepted)
            #expect(try await screen.settledFlow().session?.id == login.id)
        }
    }

    @Test func whatCannotBePushedIsRefusedAndChangesNothing() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            let login = try await client.startSession("enrol", user: "alice")
            let path = "/api/backend/sessions/\(login.id)/push"
            for body in [
                ["pushToken": ""], ["pushToken": "tö ken"], ["pushToken": String(repeating: "a", count: 4097)], [:],
                ["pushToken": "t", "extra": 1],
            ] as [[String: Any]] {
                let answer = try await client.send(.post, path, json: body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.errorCode != nil, "\(body)")
            }
            let unknown = try await client.send(.post, "/api/backend/sessions/no-such/push", json: ["pushToken": "t"])
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "SESSION_NOT_FOUND")
            // Another site's page cannot make the console push.
            let foreign = try await client.send(
                .post, path, json: ["pushToken": "t"], headers: [.contentType: "application/json", .origin: "http://attacker.example"])
            #expect(foreign.status == .forbidden)
            let after = try await client.backendSession(login.id)
            #expect(after.delivery == "qr")
            #expect(after.dispatch == nil)
        }
    }

    @Test func anEndedSessionIsNotPushed() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let login = try await client.startSession("enrol", user: "alice")
            let phone = try await client.createPhone()
            let scanned = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": login.qrText])
            #expect(scanned.status == .accepted)
            let answer = try await client.send(.post, "/api/backend/sessions/\(login.id)/push", json: ["pushToken": phone.fcmToken])
            #expect(answer.status == .conflict)
            #expect(answer.errorCode == "SESSION_STATE")
        }
    }
}
