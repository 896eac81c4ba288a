import AsyncHTTPClient
import AuthFlow
import Backend
import Foundation
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import TestDoubles
import Testing
import WebApp

/// The SDK's DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes) with its retry policy, the FCM token refresh, and faults
/// set on purpose, on a live server. Waits go to a recorder: whole schedules run at once.
@Suite(.timeLimit(.minutes(2))) struct DeviceInformationFlowTests {
    struct Attempt: Decodable {
        let number: Int
        let waitedBefore: Double
        let outcome: String
    }
    struct Refusal: Decodable {
        struct Body: Decodable {
            let code: String
            let sdkCode: Int?
            let attempts: [Attempt]?
        }
        let error: Body
    }
    struct Result: Decodable {
        struct Progress: Decodable {
            let state: String
            let attempts: [Attempt]
            let maxAttempts: Int
        }
        let progress: Progress
        let deviceInformation: DeviceInformationView
    }

    static var exponential: [String: Any] { ["type": "exponential", "maxRetries": 3, "initialDelay": 1, "maximumDelay": 8, "multiplier": 2] }

    @Test func aRetriedChangeWaitsAsThePolicyAndRetryAfterSay() async throws {
        try await withEnrolledPhone { client, screen, phoneId, sleeper in
            let fault = try await client.send(
                .post, "/api/faults",
                json: [
                    "target": "phone", "phoneId": phoneId, "kind": "status", "status": 503, "retryAfter": 2, "count": 2,
                ])
            #expect(fault.status == .created)
            let answer = try await client.send(
                .put, "/api/phones/\(phoneId)/device-information",
                json: ["name": "Work phone", "retryPolicy": Self.exponential])
            #expect(answer.status == .ok, "\(String(decoding: answer.body, as: UTF8.self))")
            let result = try answer.decode(Result.self)
            #expect(result.progress.state == "succeeded")
            #expect(result.progress.maxAttempts == 4)
            #expect(result.progress.attempts.map(\.outcome).map { $0.prefix(8) } == ["HTTP_503", "HTTP_503", "success"])
            // full jitter gives 0.5 s and 1 s; Retry-After raises both to 2 s
            #expect(result.progress.attempts.map(\.waitedBefore) == [0, 2, 2])
            #expect(sleeper.recorded == [.seconds(2), .seconds(2)])
            #expect(result.deviceInformation.name == "Work phone")
            #expect(try await client.phoneDetail(phoneId).name == "Work phone")

            // the screen saw each attempt, with the wait before the next
            var waits: [Double] = []
            var final: OperationProgress?
            while final == nil {
                guard let progress = try await screen.next().operation else { continue }
                if progress.state == .waiting { waits.append(progress.nextAttemptIn ?? -1) }
                if [.succeeded, .failed, .cancelled].contains(progress.state) { final = progress }
            }
            #expect(waits == [2, 2])
            #expect(final?.state == .succeeded)
            #expect(try await client.send(.get, "/api/faults").body.count < 20)  // the fault used up its count
        }
    }

    static func inboxCount(_ client: some TestClientProtocol, _ phoneId: String) async throws -> Int {
        let inbox = try await client.send(.get, "/api/phones/\(phoneId)/inbox")
        let object = try JSONSerialization.jsonObject(with: inbox.body) as? [String: Any]
        return (object?["messages"] as? [Any])?.count ?? -1
    }

    @Test func onlyWhatCanSucceedLaterIsRetried() async throws {
        try await withEnrolledPhone { client, _, phoneId, sleeper in
            // a refusal is final at once
            _ = try await client.send(.post, "/api/faults", json: ["target": "backend", "kind": "status", "status": 400, "count": 1])
            var answer = try await client.send(
                .put, "/api/phones/\(phoneId)/device-information",
                json: ["name": "x", "retryPolicy": Self.exponential])
            #expect(answer.status == .badRequest)
            var refusal = try answer.decode(Refusal.self)
            #expect(refusal.error.code == "HTTP_400")
            #expect(refusal.error.attempts?.count == 1)

            // no connection, retried until the policy gives up; error 70 with every attempt
            _ = try await client.send(.post, "/api/faults", json: ["target": "backend", "kind": "unreachable"])
            answer = try await client.send(
                .put, "/api/phones/\(phoneId)/device-information",
                json: ["name": "y", "retryPolicy": ["type": "constant", "maxRetries": 2, "delay": 1.5]])
            #expect(answer.status == .badGateway)
            refusal = try answer.decode(Refusal.self)
            #expect(refusal.error.code == "DEVICE_INFORMATION_CHANGE_FAILED")
            #expect(refusal.error.sdkCode == 70)
            #expect(refusal.error.attempts?.map(\.waitedBefore) == [0, 1.5, 1.5])
            #expect(sleeper.recorded == [.milliseconds(1500), .milliseconds(1500)])

            // nothing to change: done at once, asking no one (the backend is still unreachable)
            answer = try await client.send(.put, "/api/phones/\(phoneId)/device-information", json: [:])
            #expect(answer.status == .ok)
            #expect(try answer.decode(Result.self).progress.attempts.isEmpty)
            #expect(try await client.phoneDetail(phoneId).name == "Test phone")

            // a policy that makes no sense is refused by name
            for policy: [String: Any] in [
                ["type": "constant", "maxRetries": -1, "delay": 1],
                [
                    "type": "exponential", "maxRetries": 2,
                    "initialDelay": 5, "maximumDelay": 1, "multiplier": 2,
                ], ["type": "sometimes"],
            ] {
                answer = try await client.send(.put, "/api/phones/\(phoneId)/device-information", json: ["name": "z", "retryPolicy": policy])
                #expect(answer.errorCode == "INVALID_RETRY_POLICY", "\(policy)")
            }
        }
    }

    /// Cancel during the wait before a retry: the change ends as OPERATION_CANCELLED with the
    /// attempts made, and nothing changed.
    @Test func aRetryCanBeCancelled() async throws {
        // a wait that only the cancel ends
        try await withEnrolledPhone(sleep: { _ in try await Task.sleep(for: .seconds(3600)) }) { client, screen, phoneId, _ in
            _ = try await client.send(.post, "/api/faults", json: ["target": "phone", "phoneId": phoneId, "kind": "unreachable"])
            async let answer = client.send(
                .put, "/api/phones/\(phoneId)/device-information",
                json: ["name": "Never", "retryPolicy": Self.exponential])
            var progress: OperationProgress?
            repeat { progress = try await screen.next().operation } while progress?.state != .waiting
            #expect(progress?.attempts.count == 1)
            // the test client's one connection is busy with the PUT: cancel over another
            var cancel = HTTPClientRequest(url: "http://127.0.0.1:\(try #require(client.port))/api/phones/\(phoneId)/operation")
            cancel.method = .DELETE
            #expect(try await HTTPClient.shared.execute(cancel, timeout: .seconds(10)).status == .accepted)
            let refusal = try await answer
            #expect(refusal.status == .conflict)
            #expect(try refusal.decode(Refusal.self).error.code == "OPERATION_CANCELLED")
            #expect(try refusal.decode(Refusal.self).error.attempts?.count == 1)
            #expect(try await client.phoneDetail(phoneId).name == "Test phone")
            #expect(try await client.send(.delete, "/api/phones/\(phoneId)/operation").errorCode == "NO_OPERATION")
        }
    }

    @Test func aDeviceNameIsUniquePerUser() async throws {
        try await withEnrolledPhone { client, screen, phoneId, _ in
            #expect(try await client.send(.put, "/api/phones/\(phoneId)/device-information", json: ["name": "Work phone"]).status == .ok)
            let other = try await client.createPhone("Second")
            try await client.ws("/api/phones/\(other.id)/stream") { inbound, outbound, _ in
                var second = Screen(inbound, outbound)
                _ = try await second.next()
                try await enrol(client, &second, phoneId: other.id, user: "alice")
            }
            let answer = try await client.send(
                .put, "/api/phones/\(other.id)/device-information",
                json: ["name": "Work phone", "retryPolicy": Self.exponential])
            #expect(answer.status == .conflict)
            #expect(try answer.decode(Refusal.self).error.attempts?.count == 1)  // never retried
            #expect(try await client.phoneDetail(other.id).name == "Second")
            _ = screen
        }
    }

    /// The platform refreshes the token: pushes to the old one fail at once; until the backend
    /// learns the new one, so do the backend's pushes; then they arrive.
    @Test func aRefreshedTokenReachesTheBackendWithRetries() async throws {
        try await withEnrolledPhone { client, _, phoneId, _ in
            let before = try await client.phoneDetail(phoneId).fcmToken
            _ = try await client.send(.post, "/api/faults", json: ["target": "phone", "phoneId": phoneId, "kind": "unreachable"])
            var answer = try await client.send(.post, "/api/phones/\(phoneId)/fcm-token/rotate", json: ["retryPolicy": ["type": "none"]])
            #expect(answer.status == .badGateway)
            let after = try await client.phoneDetail(phoneId).fcmToken
            #expect(after != before)
            var pushed = try await client.startSession("login", user: "alice", extra: ["delivery": "push"])
            #expect(pushed.dispatch == "dispatchTargetExpired")  // the backend still has the retired token

            _ = try await client.send(.delete, "/api/faults")
            answer = try await client.send(.put, "/api/phones/\(phoneId)/device-information", json: ["fcmToken": after])
            #expect(answer.status == .ok)
            pushed = try await client.startSession("login", user: "alice", extra: ["delivery": "push"])
            #expect(pushed.dispatch == "dispatched")
            #expect(try await Self.inboxCount(client, phoneId) == 1)

            // with retries the rotation lands by itself
            _ = try await client.send(.post, "/api/faults", json: ["target": "phone", "phoneId": phoneId, "kind": "hang", "count": 1])
            answer = try await client.send(.post, "/api/phones/\(phoneId)/fcm-token/rotate", json: [:])
            #expect(answer.status == .ok)
            let result = try answer.decode(Result.self)
            #expect(result.progress.attempts.count == 2)
            #expect(result.progress.attempts.first?.outcome.contains("no answer") == true)
            pushed = try await client.startSession("login", user: "alice", extra: ["delivery": "push"])
            #expect(pushed.dispatch == "dispatched")
        }
    }

    /// Latency delays a request by a wait within its bounds; a delayed push arrives after its delay.
    @Test func latencyAndDelayedPushes() async throws {
        try await withEnrolledPhone { client, screen, phoneId, sleeper in
            _ = try await client.send(
                .post, "/api/faults",
                json: [
                    "target": "backend", "kind": "latency", "minimumMs": 200,
                    "maximumMs": 400, "count": 1,
                ])
            #expect(try await client.send(.put, "/api/phones/\(phoneId)/device-information", json: ["name": "Slow"]).status == .ok)
            #expect(sleeper.recorded == [.milliseconds(300)])  // jitter one half of the way
            _ = try await client.send(.post, "/api/faults", json: ["target": "push", "kind": "delayPush", "delaySeconds": 30, "count": 1])
            let pushed = try await client.startSession("login", user: "alice", extra: ["delivery": "push"])
            #expect(pushed.dispatch == "dispatched")
            // the recorder lets the delay pass at once; the push then reaches the screen
            var arrived: ScreenMessage
            repeat { arrived = try await screen.next() } while arrived.notification == nil
            #expect(try await Self.inboxCount(client, phoneId) == 1)
            #expect(sleeper.recorded.last == .seconds(30))
        }
    }

    @Test func faultsEndFlowsAsTheSDKWouldAndClearThemselves() async throws {
        let clock = TestClock(Date())
        try await withEnrolledPhone(clock: clock) { client, screen, phoneId, sleeper in
            _ = try await client.send(.post, "/api/faults", json: ["target": "backend", "kind": "hang", "count": 1, "seconds": 60])
            let session = try await client.startSession("login", user: "alice")
            let started = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
            #expect(started.status == .badGateway)
            #expect(started.errorCode == "SERVER_TIMEOUT")  // nextAuth's time-out, 50
            #expect(try started.decode(ErrorWithSDKCode.self).error.sdkCode == 50)
            #expect(sleeper.recorded.first == .seconds(10))  // it waited for the time-out
            // docs/behaviour.md#offline-otp: the phone tries again by itself; the fault is used up, so the session arrives
            let arrived = try await screen.settledFlow()
            #expect(arrived.type == .login && arrived.state == .waitForInput)

            // during a flow: the confirmation cannot get through, the flow ends with error 70
            _ = try await client.send(.post, "/api/faults", json: ["target": "phone", "phoneId": phoneId, "kind": "unreachable", "seconds": 60])
            try await screen.send(["action": "confirmSession"])
            let flow = try await screen.settledFlow()
            #expect(flow.state == .error)
            #expect(flow.error?.sdkCode == 70)

            // a push dropped: FCM accepted it, the phone never gets it
            _ = try await client.send(.post, "/api/faults", json: ["target": "push", "kind": "dropPush", "count": 1])
            let pushed = try await client.startSession("login", user: "alice", extra: ["delivery": "push"])
            #expect(pushed.dispatch == "dispatched")
            #expect(try await Self.inboxCount(client, phoneId) == 0)
            _ = try await client.startSession("login", user: "alice", extra: ["delivery": "push"])
            #expect(try await Self.inboxCount(client, phoneId) == 1)  // only that one was dropped

            // the phone's fault expires by itself
            #expect(String(decoding: try await client.send(.get, "/api/faults").body, as: UTF8.self).contains("unreachable"))
            clock.advance(61)
            #expect(!String(decoding: try await client.send(.get, "/api/faults").body, as: UTF8.self).contains("unreachable"))

            let refused: [([String: Any], String)] = [
                (["target": "moon", "kind": "hang"], "INVALID_FIELD"), (["target": "backend", "kind": "dropPush"], "INVALID_FIELD"),
                (["target": "backend", "kind": "status", "status": 200], "INVALID_FIELD"), (["target": "phone", "kind": "hang"], "INVALID_FIELD"),
                (["target": "backend", "kind": "hang", "seconds": 0], "INVALID_FIELD"), (["target": "backend", "kind": "latency"], "INVALID_FIELD"),
            ]
            for (body, code) in refused {
                #expect(try await client.send(.post, "/api/faults", json: body).errorCode == code, "\(body)")
            }
            #expect(try await client.send(.delete, "/api/faults/nope").status == .notFound)
        }
    }
}
