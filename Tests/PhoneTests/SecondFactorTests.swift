import AuthFlow
import BackendAPI
import Foundation
import Phone
import Synchronization
import TestDoubles
import Testing

/// The PIN as the phone takes it: refused before anything when it cannot be right, and changed
/// by proving the old one and registering a new key.
@Suite struct SecondFactorTests {
    /// A PIN of the wrong shape derives no key, sends nothing and leaves the flow as it was,
    /// still waiting for the PIN; the refusal does not repeat it.
    @Test(arguments: TestEngine.available) func aPinOfTheWrongShapeIsRefusedAndNothingIsSent(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        _ = try await phone.loginUntilThePin(id, enrolment)
        let sentBefore = phone.backend.sent.count
        let flowBefore = try #require(await phone.flow(id))

        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded("12a4b6"))
        }

        #expect(error?.code == "INVALID_PIN_FORMAT")
        #expect(error?.message.contains("12a4b6") == false)
        #expect(phone.backend.sent.count == sentBefore)
        #expect(await phone.flow(id) == flowBefore)
        #expect(flowBefore.currentInteraction?.type == .verifySecondFactor)
    }

    /// A new PIN that is too easy to guess is refused when first typed (`checkNewPin`) and when
    /// given, before the enrolment is sent; a good one then enrols.
    @Test(arguments: TestEngine.available) func aCommonNewPinIsRefusedBeforeTheEnrolmentIsSent(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let session = phone.server.session(.enrol)
        phone.backend.expect(TestServer.redeemURL, RedeemRequest.self) { _ in session }
        _ = try await phone.phones.sdk.startOutOfBand(phoneId: id, payload: phone.server.payload())
        phone.backend.expect(TestServer.url + BackendRoutes.confirm(session.sessionId), ConfirmRequest.self) { _ in
            ConfirmResponse(secondFactor: nil, challenge: "set-pin")
        }
        try await phone.phones.sdk.confirmSession(phoneId: id, accountID: nil)

        let checked = await #expect(throws: PhoneError.self) {
            try await phone.phones.sdk.checkNewPin(phoneId: id, pin: PhoneUnderTest.guarded("123456"))
        }
        let given = await #expect(throws: PhoneError.self) {
            try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded("123456"))
        }

        #expect(checked?.code == "PIN_TOO_COMMON")
        #expect(given?.code == "PIN_TOO_COMMON")
        #expect(phone.backend.sent.count == 2)
        #expect(await phone.flow(id)?.currentInteraction?.type == .setSecondFactor)
        try await phone.phones.sdk.checkNewPin(phoneId: id, pin: PhoneUnderTest.guarded(PhoneUnderTest.pin))
        #expect(try await phone.phones.phone(id: id).hasPin == false)
    }

    /// CHANGE_PIN (nextAuth's way): the old PIN proven, then a new PIN key registered, signed by
    /// the account and by itself; the next login proves the new PIN with that key.
    @Test(arguments: TestEngine.available) func aPinChangeProvesTheOldPinThenRegistersTheNewOne(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        let change = "change-session"
        phone.backend.expect(TestServer.url + BackendRoutes.management, ManagementRequest.self) { request in
            #expect(request.type == .changePin)
            #expect(request.accountId == enrolment.accountId)
            return ManagementResponse(
                sessionId: change, expiresAt: Date(timeIntervalSince1970: 1_900_000_000), challenge: "old-pin",
                secondFactor: .fresh, biometricsRegistered: false)
        }
        let started = try await phone.phones.sdk.startManagement(phoneId: id, type: .changePin)
        #expect(started.currentInteraction?.type == .verifySecondFactor)
        phone.expectPinProof(change, challenge: "old-pin", enrolment, next: "new-pin")
        try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded(PhoneUnderTest.pin))
        #expect(await phone.flow(id)?.currentInteraction?.type == .setSecondFactor)
        let newPinKey = Mutex<String?>(nil)
        phone.backend.expect(TestServer.url + BackendRoutes.setSecondFactor(change), SetSecondFactorRequest.self) { request in
            let signed = SignedMessage.setSecondFactor(sessionId: change, challenge: "new-pin", factor: "pin", publicKey: request.publicKey)
            #expect(request.factor == "pin")
            #expect(TestServer.verifies(request.accountSignature, signed, by: enrolment.accountKey))
            #expect(TestServer.verifies(request.factorSignature, signed, by: request.publicKey))
            newPinKey.withLock { $0 = request.publicKey }
            return SecondFactorResponse(result: .accepted, secondFactor: .fresh, accountId: nil, challenge: nil)
        }

        try await phone.phones.sdk.inputPin(phoneId: id, pin: PhoneUnderTest.guarded("802461"))

        #expect(await phone.flow(id)?.state == .done)
        let registered = try #require(newPinKey.withLock { $0 })
        #expect(registered != enrolment.pinKey)
        try await phone.login(id, enrolment, pin: "802461", pinKey: registered)
        #expect(await phone.flow(id)?.state == .done)
        #expect(phone.backend.unanswered.isEmpty)
    }
}
