import AuthFlow
import Backend
import BackendAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import OutOfBand
import Phone
import PushService
import Retry
import Synchronization
import TestDoubles
import Testing
import WebApp

/// The backend pushes through the FCM v1 endpoint over HTTP; the phone's screen shows the
/// notification; opening it starts the operation.
@Suite(.timeLimit(.minutes(2))) struct PushDeliveryTests {
    struct Inbox: Decodable {
        let messages: [PushService.InboxMessage]
    }

    @Test func aLoginByPushReachesTheEnrolledPhoneAndOpensIntoTheFlow() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let login = try await client.send(
                .post, "/api/backend/sessions",
                json: ["type": "login", "userId": "alice", "delivery": "push"]
            ).decode(BackendSession.self)
            #expect(login.delivery == "push")
            #expect(login.dispatch == "dispatched")
            var message = try await screen.next()
            while message.type != "notification" { message = try await screen.next() }
            let notification = try #require(message.notification)
            #expect(notification.message.notification?.title?.hasPrefix("Log in") == true)

            let opened = try await client.send(.post, "/api/phones/\(phoneId)/inbox/\(notification.id)/open", json: [:])
            #expect(opened.status == .accepted)
            let flow = try await screen.settledFlow()
            #expect(flow.type == .login)
            #expect(flow.session?.id == login.id)
            // Opened messages leave the inbox.
            #expect(try await client.send(.get, "/api/phones/\(phoneId)/inbox").decode(Inbox.self).messages.isEmpty)
        }
    }

    @Test func aPhoneSetToOpenPushesAtOnceStartsTheFlowItself() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let set = try await client.send(.put, "/api/phones/\(phone.id)/settings", json: ["openPushesAtOnce": true])
            #expect(try set.decode(PhoneDetail.self).settings.openPushesAtOnce)
            #expect(try await client.send(.put, "/api/phones/\(phone.id)/settings", json: ["openPushesAtOnce": "yes"]).status == .badRequest)
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                _ = try await screen.next()
                try await enrol(client, &screen, phoneId: phone.id, user: "alice")
                let login = try await client.send(
                    .post, "/api/backend/sessions",
                    json: ["type": "login", "userId": "alice", "delivery": "push"]
                ).decode(BackendSession.self)
                // No one opens anything: the flow starts on its own.
                #expect(try await screen.settledFlow().session?.id == login.id)
                #expect(try await client.send(.get, "/api/phones/\(phone.id)/inbox").decode(Inbox.self).messages.isEmpty)
            }
        }
    }

    @Test func aPushToAnOfflinePhoneWaitsForIt() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let enrol = try await client.send(
                .post, "/api/backend/sessions",
                json: ["type": "enrol", "userId": "bob", "pushToken": phone.fcmToken]
            ).decode(BackendSession.self)
            #expect(enrol.dispatch == "dispatched")
            try await client.ws("/api/phones/\(phone.id)/stream") { inbound, outbound, _ in
                var screen = Screen(inbound, outbound)
                #expect(try await screen.next().type == "phone")
                let waiting = try await screen.next()
                #expect(waiting.type == "notification")
                // The push's data map is the payload itself, as an app receives it.
                let payload = try #require(waiting.notification).message
                let started = try await client.send(
                    .post, "/api/phones/\(phone.id)/oob",
                    json: ["push": ["from": payload.from ?? "", "data": payload.data]])
                #expect(started.status == .accepted)
                #expect(try await screen.settledFlow().session?.id == enrol.id)
            }
            let cleared = try await client.send(.delete, "/api/phones/\(phone.id)/inbox", headers: [:])
            #expect(cleared.status == .noContent)
            #expect(try await client.send(.get, "/api/phones/\(phone.id)/inbox").decode(Inbox.self).messages.isEmpty)
        }
    }

    @Test func theFCMEndpointAnswersLikeFCM() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let data = ["nma_data": "{}", "nma_data_content_type": "application/json", "nma_data_version": "1"]
            let sent = try await client.send(
                .post, "/v1/projects/authphone/messages:send",
                json: ["message": ["token": phone.fcmToken, "data": data]])
            #expect(sent.status == .ok)
            #expect(try sent.decode([String: String].self)["name"]?.hasPrefix("projects/authphone/messages/") == true)

            let cases: [(String, [String: Any], HTTPResponse.Status, String)] = [
                ("authphone", ["message": ["token": "unknown-token", "data": data]], .notFound, "UNREGISTERED"),
                ("someone-else", ["message": ["token": phone.fcmToken, "data": data]], .forbidden, "SENDER_ID_MISMATCH"),
                ("authphone", ["message": ["token": phone.fcmToken, "data": ["n": 1]]], .badRequest, "INVALID_ARGUMENT"),
                ("authphone", ["message": ["topic": "news", "data": data]], .badRequest, "INVALID_ARGUMENT"),
            ]
            for (project, body, status, code) in cases {
                let answer = try await client.send(.post, "/v1/projects/\(project)/messages:send", json: body)
                #expect(answer.status == status)
                let error = try answer.decode(FCMError.Body.self).error
                #expect(error.code == Int(status.code))
                #expect(error.details.first?.errorCode == code)
                #expect(error.details.first?.type == "type.googleapis.com/google.firebase.fcm.v1.FcmError")
            }
        }
    }

    /// FCM's 429 says when to try again; the backend's retries read it.
    @Test func aQuotaRefusalCarriesRetryAfter() async throws {
        var configuration = testConfiguration()
        configuration.push = .init(rateLimit: 1)
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let phone = try await client.createPhone()
            let body = ["message": ["token": phone.fcmToken, "notification": ["title": "t"]]]
            #expect(try await client.send(.post, "/v1/projects/authphone/messages:send", json: body).status == .ok)
            let data = try JSONSerialization.data(withJSONObject: body)
            try await client.execute(
                uri: "/v1/projects/authphone/messages:send", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: data)
            ) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter].flatMap(Int.init).map { (1...60).contains($0) } == true)
            }
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct PendingOperationsTests {
    struct Pending: Decodable {
        let operations: [PendingOperation]
    }

    @Test func aPhoneWithoutPushesPullsTheLoginsWaitingForIt() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let other = try await client.createPhone("other")
            #expect(try await client.send(.get, "/api/phones/\(phoneId)/pending").decode(Pending.self).operations.isEmpty)

            let login = try await client.startSession("login", user: "alice")
            _ = try await client.startSession("enrol", user: "bob")  // someone else's
            let pending = try await client.send(.get, "/api/phones/\(phoneId)/pending").decode(Pending.self).operations
            #expect(pending.map(\.sessionId) == [login.id])
            // A phone with no account there has nothing waiting.
            #expect(try await client.send(.get, "/api/phones/\(other.id)/pending").decode(Pending.self).operations.isEmpty)

            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": try #require(pending.first).payload])
            #expect(try await screen.settledFlow().session?.id == login.id)
            // Redeemed: no longer pending.
            #expect(try await client.send(.get, "/api/phones/\(phoneId)/pending").decode(Pending.self).operations.isEmpty)
        }
    }
}

/// The backend's pushes against an FCM endpoint that fails on purpose (a stub at the network
/// boundary): what FCM says may succeed later is retried, honouring Retry-After; the rest is not.
@Suite(.timeLimit(.minutes(2))) struct PushRetryTests {
    final class Script: Sendable {
        let answers: Mutex<[(HTTPResponse.Status, String?, String)]>
        private let requests = Mutex(0)
        init(_ answers: [(HTTPResponse.Status, String?, String)]) { self.answers = Mutex(answers) }
        /// The requests answered so far.
        var served: Int { requests.withLock { $0 } }
        func next() -> (HTTPResponse.Status, String?, String) {
            requests.withLock { $0 += 1 }
            return answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
        }
    }

    static func fcmError(_ code: Int, _ status: String, _ errorCode: String) -> String {
        #"{"error": {"code": \#(code), "message": "m", "status": "\#(status)", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "\#(errorCode)"}]}}"#
    }

    static let fcmRoute = "/v1/projects/{project}/{method}"

    /// How the push of a new enrolment went, sent by a backend whose FCM endpoint is `pushURL`.
    static func dispatch(to pushURL: String, sleeper: SleepRecorder) async throws -> String? {
        let backend = try await DemoBackend(
            store: .inMemory(), configuration: .init(pushURL: pushURL),
            baseURL: { "http://127.0.0.1:8080" }, sleep: { sleeper.sleep($0) })
        return try await backend.createSession(type: .enrol, userId: "alice", displayName: nil, delivery: .push(token: "t")).dispatch
    }

    func dispatch(through script: Script) async throws -> (String?, [Duration]) {
        let sleeper = SleepRecorder()
        let dispatch = try await withServer(
            answering: Self.fcmRoute,
            { _, _ in
                let (status, retryAfter, body) = script.next()
                var headers: HTTPFields = [.contentType: "application/json"]
                if let retryAfter { headers[.retryAfter] = retryAfter }
                return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
            }
        ) { pushURL in try await Self.dispatch(to: pushURL, sleeper: sleeper) }
        return (dispatch, sleeper.recorded)
    }

    @Test func unavailableWithRetryAfterIsRetriedAfterAtLeastThatLong() async throws {
        let (dispatch, waits) = try await dispatch(
            through: Script([
                (.serviceUnavailable, "7", Self.fcmError(503, "UNAVAILABLE", "UNAVAILABLE")),
                (.ok, nil, #"{"name": "projects/authphone/messages/1"}"#),
            ]))
        #expect(dispatch == "dispatched")
        #expect(waits.count == 1)
        #expect(try #require(waits.first) >= .seconds(7))
    }

    @Test func quotaAndServerErrorsAreRetriedUntilThePolicyGivesUp() async throws {
        let script = Script([(.tooManyRequests, nil, Self.fcmError(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"))])
        let (dispatch, _) = try await dispatch(through: script)
        #expect(dispatch == "dispatchError: QUOTA_EXCEEDED")
        // counted at the server: a retry whose jittered wait rounds to nothing sleeps not at all
        #expect(script.served == DemoBackend.Configuration.defaultPushRetry.maxRetries + 1)
    }

    @Test func unregisteredAndInvalidArgumentAreNotRetried() async throws {
        let (expired, waits) = try await dispatch(through: Script([(.notFound, nil, Self.fcmError(404, "NOT_FOUND", "UNREGISTERED"))]))
        #expect(expired == "dispatchTargetExpired")
        #expect(waits.isEmpty)
        let (invalid, moreWaits) = try await dispatch(
            through: Script([(.badRequest, nil, Self.fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"))]))
        #expect(invalid == "dispatchError: INVALID_ARGUMENT")
        #expect(moreWaits.isEmpty)
    }

    /// An FCM endpoint that redirects elsewhere is not followed: the other server hears nothing.
    @Test func aRedirectIsNotFollowed() async throws {
        let hits = Hits()
        let dispatch = try await withServer(
            answering: Self.fcmRoute,
            { _, _ in
                hits.add()
                return Response(status: .ok)
            }
        ) { elsewhere in
            try await withServer(
                answering: Self.fcmRoute,
                { request, _ in
                    Response(status: .temporaryRedirect, headers: [.location: elsewhere + request.uri.path])
                }
            ) { pushURL in try await Self.dispatch(to: pushURL, sleeper: SleepRecorder()) }
        }
        #expect(dispatch == "dispatchError: HTTP 307")
        #expect(hits.count == 0)
    }
}
