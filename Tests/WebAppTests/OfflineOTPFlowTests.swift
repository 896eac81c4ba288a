import AuthFlow
import Backend
import Foundation
import HummingbirdTesting
import Phone
import TestDoubles
import Testing
import WebApp

/// The offline OTP (docs/behaviour.md#offline-otp) end to end on a live server: the backend made unreachable for one phone, a login QR
/// scanned, the OTP generated on the phone and typed in as a relying party would. Waits go to a
/// recorder and jitter is one half, so the retry schedule is exact and nothing sleeps.
@Suite(.timeLimit(.minutes(2))) struct OfflineOTPFlowTests {
    static func makeUnreachable(
        _ client: some TestClientProtocol, _ phoneId: String, kind: String = "unreachable",
        count: Int? = nil
    ) async throws {
        var fault: [String: Any] = ["target": "phone", "phoneId": phoneId, "kind": kind]
        fault["count"] = count
        #expect(try await client.send(.post, "/api/faults", json: fault).status == .created)
    }

    @Test func anOTPFromAnUnreachablePhoneLogsTheSessionIn() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withEnrolledPhone(clock: clock) { client, screen, phoneId, sleeper in
            try await Self.makeUnreachable(client, phoneId)
            let session = try await client.startSession("login", user: "alice")
            let scanned = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
            #expect(scanned.status == .badGateway)
            #expect(scanned.errorCode == "SERVER_CONNECTION_ERROR")

            // STARTING: the OTP is announced before any connection, then the connection error and the countdown
            let starting = try await screen.nextSession()
            #expect(starting.state == .starting && starting.otpAvailable && !starting.connectionError)
            #expect(starting.accounts.map(\.userId) == ["alice"])
            var failing = try await screen.nextSession()
            #expect(failing.connectionError && failing.otpAvailable && failing.error?.sdkCode == 70)
            #expect(failing.otpOfferAt == clock.now().addingTimeInterval(60))
            // the phone keeps trying with backoff (8 retries, 1 s doubling to 30 s, jitter one half)
            while failing.nextAttemptAt != nil { failing = try await screen.nextSession() }
            #expect(failing.attempts == 9)
            #expect(sleeper.recorded == [0.5, 1, 2, 4, 8, 15, 15, 15].map { Duration.milliseconds(Int($0 * 1000)) })
            #expect(failing.state == .starting && failing.otpAvailable)

            // generateOTP: the only moment it is computed; the session stops
            let generated = try await client.send(.post, "/api/phones/\(phoneId)/otp", json: [:])
            #expect(generated.status == .ok)
            let stopped = try generated.decode(SessionStart.self)
            #expect(stopped.state == .stopped && stopped.stopReason == "OTP_GENERATED" && !stopped.otpAvailable)
            let otp = try #require(stopped.otp)
            #expect(otp.wholeMatch(of: #/[0-9A-HJKMNP-TV-Z]{6} [0-9A-HJKMNP-TV-Z]{6}/#) != nil)
            #expect(try await screen.nextSession().otp == otp)
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/otp", json: [:]).errorCode == "OTP_NOT_AVAILABLE")

            // the relying party: refused while ENABLE_OTP is off, then logged in, marked otplogin
            let off = try await client.send(.post, "/api/backend/sessions/\(session.id)/otp-login", json: ["otp": otp])
            #expect(off.status == .forbidden && off.errorCode == "OTP_DISABLED")
            #expect(try await client.send(.put, "/api/backend/server-flags", json: ["flags": ["ENABLE_OTP": true]]).status == .ok)
            let typed = otp.lowercased().replacingOccurrences(of: " ", with: "-")
            let login = try await client.send(.post, "/api/backend/sessions/\(session.id)/otp-login", json: ["otp": typed])
            #expect(login.status == .ok)
            let status = try await client.backendSession(session.id)
            #expect(status.status == .loggedin && status.otplogin && status.loggedin)
            #expect(
                try await client.send(.post, "/api/backend/sessions/\(session.id)/otp-login", json: ["otp": otp]).errorCode
                    == "SESSION_STATE")
            #expect(try await client.phoneDetail(phoneId).session?.otp == otp)
        }
    }

    @Test func whenTheBackendComesBackTheFlowStartsAndTheOTPIsWithdrawn() async throws {
        try await withEnrolledPhone { client, screen, phoneId, sleeper in
            try await Self.makeUnreachable(client, phoneId, count: 2)
            let session = try await client.startSession("login", user: "alice")
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText]).status == .badGateway)
            let flow = try await screen.settledFlow()
            #expect(flow.type == .login && flow.state == .waitForInput && flow.currentInteraction?.type == .confirm)
            #expect(sleeper.recorded == [.milliseconds(500), .seconds(1)])
            let detail = try await client.phoneDetail(phoneId)
            #expect(detail.session?.state == .ready && detail.session?.otpAvailable == false && detail.session?.attempts == 3)
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/otp", json: [:]).errorCode == "OTP_NOT_AVAILABLE")
            #expect(try await client.backendSession(session.id).status == .redeemed)
        }
    }

    /// A pushed login opened while the backend cannot be reached leaves the inbox: the phone
    /// has it, and starts its flow by itself once the backend answers.
    @Test func anOpenedPushLeavesTheInboxWhileThePhoneRetries() async throws {
        try await withEnrolledPhone { client, screen, phoneId, _ in
            _ = try await client.startSession("login", user: "alice", extra: ["delivery": "push"])
            let inbox = try await client.send(.get, "/api/phones/\(phoneId)/inbox")
            let message = try #require(
                ((try JSONSerialization.jsonObject(with: inbox.body) as? [String: Any])?["messages"]
                    as? [[String: Any]])?.first?["id"] as? String)
            try await Self.makeUnreachable(client, phoneId, count: 1)
            let opened = try await client.send(.post, "/api/phones/\(phoneId)/inbox/\(message)/open")
            #expect(opened.errorCode == "SERVER_CONNECTION_ERROR")
            let flow = try await screen.settledFlow()
            #expect(flow.type == .login && flow.currentInteraction?.type == .confirm)
            let after = try await client.send(.get, "/api/phones/\(phoneId)/inbox")
            #expect(String(decoding: after.body, as: UTF8.self).contains(message) == false)
        }
    }

    @Test func anOfflinePhoneOffersTheOTPAtOnce() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withEnrolledPhone(clock: clock) { client, screen, phoneId, _ in
            try await Self.makeUnreachable(client, phoneId, kind: "offline")
            let session = try await client.startSession("login", user: "alice")
            let scanned = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
            #expect(scanned.errorCode == "SERVER_CONNECTION_ERROR")
            var news = try await screen.nextSession()
            while !news.connectionError { news = try await screen.nextSession() }
            #expect(news.otpOfferAt == clock.now())
        }
    }

    @Test func severalAccountsNeedAChoiceAndACancelStopsTheSession() async throws {
        try await withEnrolledPhone { client, screen, phoneId, _ in
            try await enrol(client, &screen, phoneId: phoneId, user: "bob")
            #expect(try await client.send(.put, "/api/phones/\(phoneId)/settings", json: ["otpCountdown": 5]).status == .ok)
            try await Self.makeUnreachable(client, phoneId)
            let session = try await client.startSession("login", user: "bob")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText])
            let detail = try await client.phoneDetail(phoneId)
            let accounts = try #require(detail.session?.accounts)
            #expect(accounts.count == 2)
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/otp", json: [:]).errorCode == "ACCOUNT_REQUIRED")
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/otp", json: ["account": "nope"]).errorCode == "UNKNOWN_ACCOUNT")
            // a second scan, the phone's own flows and changes to its accounts wait for this one
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": session.qrText]).errorCode == "FLOW_ACTIVE")
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/flows", json: ["type": "CHANGE_PIN"]).errorCode == "FLOW_ACTIVE")
            #expect(
                try await client.send(
                    .post, "/api/phones/\(phoneId)/local-data/delete-authenticator",
                    json: ["userId": "bob", "aaid": "PIN"]
                ).errorCode == "FLOW_ACTIVE")

            try await screen.send(["action": "cancel"])
            var news = try await screen.nextSession()
            while news.state != .stopped { news = try await screen.nextSession() }
            #expect(news.stopReason == "USER_CANCELED")
            let bob = try #require(accounts.first { $0.userId == "bob" })
            #expect(try await client.send(.post, "/api/phones/\(phoneId)/otp", json: ["account": bob.id]).errorCode == "OTP_NOT_AVAILABLE")
        }
    }

    @Test func withoutAnAccountAtTheServerThereIsNoOTP() async throws {
        try await withEnrolledPhone { client, screen, phoneId, _ in
            let other = try await client.createPhone("Empty phone")
            try await Self.makeUnreachable(client, other.id)
            let session = try await client.startSession("login", user: "alice")
            let scanned = try await client.send(.post, "/api/phones/\(other.id)/oob", json: ["qr": session.qrText])
            #expect(scanned.errorCode == "SERVER_CONNECTION_ERROR")
            // nothing to offer: the session stops, and the phone does not keep trying
            let detail = try await client.phoneDetail(other.id)
            #expect(detail.session?.state == .stopped && detail.session?.otpAvailable == false)
            #expect(detail.session?.stopReason == "SERVER_CONNECTION_ERROR")
            #expect(try await client.send(.post, "/api/phones/\(other.id)/otp", json: [:]).errorCode == "OTP_NOT_AVAILABLE")
            #expect(try await client.send(.put, "/api/phones/\(phoneId)/settings", json: ["otpCountdown": 601]).errorCode == "INVALID_FIELD")
        }
    }
}
