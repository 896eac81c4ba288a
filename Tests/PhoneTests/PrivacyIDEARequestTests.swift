import BlockingWork
import Foundation
import PrivacyIDEA
import SodiumKit
import TestDoubles
import Testing

@testable import Phone

/// The phone's side of privacyIDEA's push tokens that needs no privacyIDEA: a token kept as a
/// registration keeps it, challenges signed (or not) by a key the test holds as privacyIDEA
/// would, the clock moved by the test. privacyIDEA itself answers in Tests/api/test_privacyidea_push.py.
struct PrivacyIDEARequestTests {
    // 4096-bit keys take a second or more each in a debug build: made once for the suite
    static let serverKey = try! PushTokenKey.generate()
    static let tokenKey = try! PushTokenKey.generate()
    static let otherKey = try! PushTokenKey.generate()
    static let origin = "http://127.0.0.1:5001"

    /// A phone holding the push token PIPU1 of the test's privacyIDEA.
    func phoneWithToken(_ phone: PhoneUnderTest, requiresUnlock: Bool = false) async throws -> String {
        let id = try await phone.newPhone()
        try await phone.store.keep(
            PushTokenRecord(
                phoneId: id, serial: "PIPU1", label: "alice", issuer: "privacyIDEA", url: Self.origin + "/ttype/push", origin: Self.origin,
                sslVerify: true, pollOnly: true, requiresUnlock: requiresUnlock, tokenKey: Self.tokenKey.pkcs8,
                serverKey: Self.serverKey.publicKeyForServer, fcmToken: "fcm", createdAt: phone.clock.now()), trusting: Self.origin)
        return id
    }

    /// privacyIDEA's challenge fields, signed by `signer` over what privacyIDEA signs.
    static func challenge(nonce: String = "NONCE1", url: String = origin + "/ttype/push", question: String? = nil, signer: PushTokenKey = serverKey)
        throws -> [String: String]
    {
        var fields: [String: String] = [
            "nonce": nonce, "question": "Log in?", "serial": "PIPU1", "title": "privacyIDEA", "sslverify": "1", "url": url, "signature": "",
        ]
        fields["signature"] = try signer.sign(try PushChallenge(data: fields).signedText)
        if let question { fields["question"] = question }
        return fields
    }

    @Test(arguments: TestEngine.available) func aSignedChallengeWaitsForTheUser(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone)
        let shown = try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge())
        #expect((shown.kind, shown.state, shown.question, shown.nonce) == (.challenge, .waitForInput, "Log in?", "NONCE1"))
    }

    /// A rule for the challenge's server and text answers it as the user would (here a decline,
    /// sent to a privacyIDEA that is not there); one whose text it lacks leaves it waiting.
    @Test(arguments: TestEngine.available) func aRuleForTheServerAndTextAnswersAChallenge(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone)
        _ = try await phone.phones.addAutoAnswerRule(phoneId: id, .init(server: "127.0.0.1", text: "Pay", answer: .decline))
        #expect(try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge()).state == .waitForInput)
        _ = try await phone.phones.addAutoAnswerRule(phoneId: id, .init(server: Self.origin, text: "Log in", answer: .decline))
        let answered = try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge())
        #expect(answered.state.isFinal)
        #expect(try await phone.store.wasAnswered(phoneId: id, serial: "PIPU1", nonce: "NONCE1"))
    }

    @Test(arguments: TestEngine.available) func anAlteredQuestionIsShownAsForgedAndCannotBeAnswered(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone)
        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: try Self.challenge(question: "Pay 1000 EUR?"))
        }
        #expect(error?.code == "PUSH_CHALLENGE_FORGED")
        let screen = try #require(await phone.phones.privacyIDEA.request(phoneId: id))
        #expect((screen.state, screen.error?.code, screen.question) == (.error, "PUSH_CHALLENGE_FORGED", "Pay 1000 EUR?"))
        await #expect(throws: PhoneError.self) { try await phone.phones.privacyIDEA.answer(phoneId: id, accept: true, presence: nil) }
    }

    @Test(arguments: TestEngine.available) func aChallengeSignedByAnotherKeyOrNamingAnotherServerIsForged(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone)
        for fields in [try Self.challenge(signer: Self.otherKey), try Self.challenge(url: "http://evil.test/ttype/push")] {
            let error = await #expect(throws: PhoneError.self) { try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: fields) }
            #expect(error?.code == "PUSH_CHALLENGE_FORGED")
        }
    }

    @Test(arguments: TestEngine.available) func anAnsweredChallengeIsAReplay(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone)
        #expect(try await phone.store.noteAnswered(phoneId: id, serial: "PIPU1", nonce: "NONCE1", at: phone.clock.now()))
        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge())
        }
        #expect(error?.code == "CHALLENGE_REPLAYED")
        #expect(await phone.phones.privacyIDEA.request(phoneId: id) == nil)
    }

    @Test(arguments: TestEngine.available) func anAnswerAfterTheChallengesLifetimeIsRefusedWithoutAsking(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone)
        _ = try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge())
        phone.clock.advance(121)
        let error = await #expect(throws: PhoneError.self) { try await phone.phones.privacyIDEA.answer(phoneId: id, accept: true, presence: nil) }
        #expect(error?.code == "CHALLENGE_EXPIRED")
        #expect(await phone.phones.privacyIDEA.request(phoneId: id)?.state == .error)
        // nothing was sent, so nothing counts as answered
        #expect(try await !phone.store.wasAnswered(phoneId: id, serial: "PIPU1", nonce: "NONCE1"))
    }

    @Test(arguments: TestEngine.available) func aChallengeForATokenThePhoneDoesNotHoldIsRefused(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge())
        }
        #expect(error?.code == "UNKNOWN_SERIAL")
    }

    @Test(arguments: TestEngine.available) func anUnreachablePrivacyIDEAIsTriedAgainUnderThePolicyThenAnError(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let closed = "http%3A//127.0.0.1%3A9/ttype/push"
        let text = "otpauth://pipush/PIPU2?url=\(closed)&v=1&serial=PIPU2&enrollment_credential=c&sslverify=1"
        #expect(try await phone.phones.privacyIDEA.startEnrolment(phoneId: id, text: text).state == .waitForInput)
        let screens = phone.phones.events.subscribe(id)
        let first = try await phone.phones.privacyIDEA.answer(phoneId: id, accept: true, presence: nil)
        #expect((first.state, first.attempt, first.maxAttempts) == (.processing, 1, 4))
        var screen = first
        for await case .privacyIDEA(let next) in screens {
            screen = next
            if next.state.isFinal { break }
        }
        #expect((screen.state, screen.error?.code, screen.attempt) == (.error, "SERVER_CONNECTION_ERROR", 4))
        #expect(phone.sleeps.recorded.count == 3)
        #expect(try await phone.phones.privacyIDEA.tokens(phoneId: id).isEmpty)
    }

    /// The token's RSA key is made in the key lane, off the threads that answer requests: a lane
    /// with no room refuses the enrolment at once, before privacyIDEA is asked, and keeps nothing.
    @Test func theTokensKeyIsMadeInTheKeyLane() async throws {
        let full = WorkLane(name: "keys", threads: 1, capacity: 0, retryAfter: .seconds(2))
        let phone = try await PhoneUnderTest(on: .sqlite, keyLane: full)
        let id = try await phone.newPhone()
        let text = "otpauth://pipush/PIPU3?url=http%3A//127.0.0.1%3A9/ttype/push&v=1&serial=PIPU3&enrollment_credential=c&sslverify=1"
        #expect(try await phone.phones.privacyIDEA.startEnrolment(phoneId: id, text: text).state == .waitForInput)
        let ended = try await phone.phones.privacyIDEA.answer(phoneId: id, accept: true, presence: nil)
        #expect((ended.state, ended.error?.code, ended.attempt) == (.error, "PHONE_BUSY", nil))
        #expect(try await phone.phones.privacyIDEA.tokens(phoneId: id).isEmpty)
        await full.shutdown()
    }

    /// The phone's PIN as an enrolment leaves it: its salt, and its key's public half.
    func setPin(_ pin: String, on id: String, of phone: PhoneUnderTest) async throws {
        let salt = [UInt8](repeating: 7, count: 16)
        let key = try await phone.phones.device.pinPad.deriveKey(try GuardedBytes(copying: pin.utf8), salt: salt, phoneId: id)
        try await phone.store.setPinSalt(phoneId: id, Data(salt))
        try await phone.store.pinAccepted(phoneId: id, at: phone.clock.now(), pinPublicKey: Data(key.publicKey))
    }

    @Test(arguments: TestEngine.available) func aTokenThatAsksToUnlockTakesThePhonesPinOrABiometricBeforeAnAcceptIsSent(on engine: TestEngine)
        async throws
    {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone, requiresUnlock: true)
        try await setPin("260418", on: id, of: phone)
        let shown = try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge())
        #expect(shown.unlockWith == [.pin, .biometric])
        let refusals: [(Unlock?, String)] = [
            (nil, "UNLOCK_REQUIRED"), (.pin(try GuardedBytes(copying: "111111".utf8)), "UNLOCK_FAILED"),
            (.biometric(recognised: false), "UNLOCK_FAILED"),
        ]
        for (unlock, code) in refusals {
            let error = await #expect(throws: PhoneError.self) {
                try await phone.phones.privacyIDEA.answer(phoneId: id, accept: true, presence: nil, unlock: unlock)
            }
            #expect(error?.code == code)
            #expect(await phone.phones.privacyIDEA.request(phoneId: id)?.state == .waitForInput)
            #expect(try await !phone.store.wasAnswered(phoneId: id, serial: "PIPU1", nonce: "NONCE1"), "a refused unlock sent the answer")
        }
        // the phone's PIN unlocks: the answer is signed and sent (this privacyIDEA does not listen)
        let sent = try await phone.phones.privacyIDEA.answer(
            phoneId: id, accept: true, presence: nil, unlock: .pin(try GuardedBytes(copying: "260418".utf8)))
        #expect(sent.error?.code != "UNLOCK_FAILED")
        #expect(try await phone.store.wasAnswered(phoneId: id, serial: "PIPU1", nonce: "NONCE1"))
    }

    @Test(arguments: TestEngine.available) func theSettingAsksToUnlockEveryTokenAndAPhoneWithNeitherFactorCannotAccept(on engine: TestEngine)
        async throws
    {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phoneWithToken(phone)
        _ = try await phone.phones.update(phoneId: id, settings: PhoneSettingsChange(biometricSensor: false, unlockPushTokens: true))
        #expect(try await phone.phones.privacyIDEA.receiveChallenge(phoneId: id, data: Self.challenge()).unlockWith == [])
        let error = await #expect(throws: PhoneError.self) {
            try await phone.phones.privacyIDEA.answer(phoneId: id, accept: true, presence: nil, unlock: .biometric(recognised: true))
        }
        #expect(error?.code == "UNLOCK_UNAVAILABLE")
        // a decline needs no unlock
        #expect(try await phone.phones.privacyIDEA.answer(phoneId: id, accept: false, presence: nil).state != .waitForInput)
    }
}
