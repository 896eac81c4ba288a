import AuthFlow
import BackendAPI
import BlockingWork
import Foundation
import OutOfBand
import Phone
import TestDoubles
import Testing

/// The flows as the phone runs them against a scripted backend: what it sends at each step, and
/// where each answer leaves the flow.
@Suite struct FlowTests {
    /// Redeem, confirm, a new PIN: the account the backend accepted is kept, with its server.
    @Test(arguments: TestEngine.available) func anEnrolmentKeepsTheAccountTheBackendAccepted(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()

        let detail = try await phone.phones.phone(id: id)
        #expect(detail.accounts.map(\.id) == [enrolment.accountId])
        #expect(detail.accounts.first?.userId == "alice")
        #expect(detail.accounts.first?.server == ServerSummary(name: "Test backend", url: TestServer.url))
        #expect(detail.hasPin)
        let redeem = try #require(phone.backend.sent.first).decode(RedeemRequest.self)
        let signed = SignedMessage.redeem(token: redeem.token, deviceId: detail.deviceId, devicePublicKey: redeem.devicePublicKey)
        #expect(TestServer.verifies(redeem.deviceSignature, signed, by: redeem.devicePublicKey))
        #expect(phone.backend.sent.allSatisfy { $0.phoneId == id })
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// A login signs the confirmation with the account key and proves the PIN with the PIN key
    /// it registered at enrolment (the same salt, the same derivation).
    @Test(arguments: TestEngine.available) func aLoginProvesThePinWithTheKeysItEnrolled(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()

        try await phone.login(id, enrolment)

        let flow = try #require(await phone.flow(id))
        #expect(flow.type == .login)
        #expect(flow.state == .done)
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// A rejected PIN asks again, showing the failure the backend counted; the next proof signs
    /// the challenge that came with the rejection.
    @Test(arguments: TestEngine.available) func aWrongPinIsAskedAgainWithTheFailureCounted(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        let (session, challenge) = try await phone.loginUntilThePin(id, enrolment)
        phone.expectPinProof(session.sessionId, challenge: challenge, enrolment)

        try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded("975310"))

        let asked = try #require(await phone.flow(id))
        #expect(asked.state == .waitForInput)
        #expect(asked.currentInteraction?.type == .verifySecondFactor)
        #expect(asked.previousInteractionResult?.type == .pinFail)
        #expect(asked.secondFactorAccount?.failedAttempts == 1)
        phone.expectPinProof(session.sessionId, challenge: PhoneUnderTest.retryChallenge, enrolment, failuresBefore: 1)
        try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded(PhoneUnderTest.pin))
        #expect(await phone.flow(id)?.state == .done)
    }

    /// PINs derive their keys on the PIN lane: a full lane refuses the PIN before the flow moves
    /// (nothing derived, nothing sent), and the PIN goes through once there is room.
    @Test(arguments: TestEngine.available) func aPinIsRefusedAtOnceWhileThePinLaneIsFull(on engine: TestEngine) async throws {
        let lane = WorkLane(name: "pins", threads: 1, capacity: 1, retryAfter: .seconds(1))
        let phone = try await PhoneUnderTest(on: engine, pinLane: lane)
        let (id, enrolment) = try await phone.enrolledPhone()
        let (session, challenge) = try await phone.loginUntilThePin(id, enrolment)
        let release = DispatchSemaphore(value: 0)
        let holder = Task { try await lane.run { _ in release.wait() } }
        while lane.load < 1 { await Task.yield() }

        await #expect { try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded(PhoneUnderTest.pin)) } throws: { error in
            (error as? PhoneError)?.code == "PHONE_BUSY"
        }
        #expect(await phone.flow(id)?.currentInteraction?.type == .verifySecondFactor)
        #expect(await phone.flow(id)?.state == .waitForInput)

        release.signal()
        try await holder.value
        phone.expectPinProof(session.sessionId, challenge: challenge, enrolment)
        try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded(PhoneUnderTest.pin))
        #expect(await phone.flow(id)?.state == .done)
        await lane.shutdown()
    }

    /// The rejection that blocks the PIN ends the flow, and the backend hears why, signed by the device.
    @Test(arguments: TestEngine.available) func aBlockedPinEndsTheFlowAndTheBackendHearsWhy(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        let (session, challenge) = try await phone.loginUntilThePin(id, enrolment)
        phone.expectPinProof(session.sessionId, challenge: challenge, enrolment, failuresBefore: 2)
        try expectAbandon(session, code: "PIN_BLOCKED", on: phone)

        try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded("975310"))

        let flow = try #require(await phone.flow(id))
        #expect(flow.state == .error)
        #expect(flow.error?.code == "PIN_BLOCKED")
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// Cancelling ends the flow on the phone and the session at the backend.
    @Test(arguments: TestEngine.available) func cancellingEndsTheSessionAtTheBackendToo(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.enrolledPhone().id
        let session = phone.server.session(.login)
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in session }
        let flow = try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload())
        #expect(flow.currentInteraction?.type == .confirm)
        try expectAbandon(session, code: FlowError.userCanceled.code, on: phone)

        try await phone.phones.sdk.cancel(phoneId: id)

        #expect(await phone.flow(id)?.error == .userCanceled)
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// The phone signs the very text the screen showed, with the account's key.
    @Test(arguments: TestEngine.available) func aTransactionIsSignedAsShown(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        let text = "Pay 120.00 EUR to Bob"
        let session = phone.server.session(.transaction, transaction: text)
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in session }
        _ = try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload())
        phone.backend.expect(TestServer.url + BackendRoutes.confirm(session.sessionId), ConfirmRequest.self) { _ in
            ConfirmResponse(secondFactor: .fresh, challenge: "shown")
        }
        try await phone.phones.sdk.confirmSession(phoneId: id, accountID: nil)
        #expect(await phone.flow(id)?.transaction == text)
        phone.backend.expect(TestServer.url + BackendRoutes.confirmTransaction(session.sessionId), TransactionConfirmRequest.self) {
            request in
            let signed = SignedMessage.transaction(sessionId: session.sessionId, challenge: "shown", accountId: enrolment.accountId, text: text)
            #expect(request.transaction == text)
            #expect(TestServer.verifies(request.signature, signed, by: enrolment.accountKey))
            return TransactionConfirmResponse(challenge: "signed")
        }

        try await phone.phones.sdk.confirmTransaction(phoneId: id)

        #expect(await phone.flow(id)?.currentInteraction?.type == .verifySecondFactor)
        #expect(phone.backend.unanswered.isEmpty)
    }

    /// A push as a backend sends it to FCM, decoded as the app decodes a notification, starts
    /// the session it carries with the phone's account at that server on offer.
    @Test(arguments: TestEngine.available) func aPushStartsTheSessionItCarries(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        let payload = phone.server.payload(token: "pushed-token")
        let send: [String: Any] = [
            "message": ["token": "fcm-token", "data": PushMessage.data(for: payload), "notification": ["title": "Log in?"]]
        ]
        let push = try PushDecoder.decode(json: Array(try JSONSerialization.data(withJSONObject: send)))
        let session = phone.server.session(.login)
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { request in
            #expect(request.token == "pushed-token")
            return session
        }

        let flow = try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: push.payload())

        #expect(flow.type == .login)
        #expect(flow.session?.id == session.sessionId)
        #expect(flow.currentInteraction?.confirmSessionInfo?.accounts.map(\.id) == [enrolment.accountId])
    }

    private func expectAbandon(_ session: RedeemResponse, code: String, on phone: PhoneUnderTest) throws {
        let deviceKey = try phone.devicePublicKey()
        phone.backend.expect(TestServer.url + BackendRoutes.abandon(session.sessionId), AbandonRequest.self) { request in
            #expect(request.code == code)
            #expect(TestServer.verifies(request.deviceSignature, SignedMessage.abandon(sessionId: session.sessionId, code: code), by: deviceKey))
            return Acknowledged()
        }
    }
}
