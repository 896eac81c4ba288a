import Foundation
import Testing

@testable import PrivacyIDEA

/// The phone's requests carry the fields and signatures privacyIDEA checks; PKCS #1 v1.5 is
/// deterministic, so a signature equals the one privacyIDEA's library makes with the same key.
struct PushTokenRequestsTests {
    let key = try! PushTokenKey(pkcs8: Data(base64Encoded: PrivacyIDEAVectors.phonePrivateKeyBase64)!)
    let challenge = try! PushChallenge(fields: PushChallengeTests.fields)

    @Test func aDeclineIsSignedAsPrivacyIDEAChecksIt() throws {
        let fields = try PushTokenRequests.answer(challenge, .decline(nil), key: key)
        #expect(fields.map(\.name) == ["serial", "nonce", "decline", "signature"])
        #expect(fields.last?.value == PrivacyIDEAVectors.phoneDeclineSignature)
    }

    @Test(arguments: DeclineReason.allCases)
    func aDeclineReasonIsSignedAfterTheDecline(reason: DeclineReason) throws {
        let fields = try PushTokenRequests.answer(challenge, .decline(reason), key: key)
        #expect(fields.map(\.name) == ["serial", "nonce", "decline", "decline_reason", "signature"])
        #expect(fields[3].value == reason.rawValue)
        let own = try PrivacyIDEAServerKey(key.publicKeyForServer)
        #expect(own.isValid(signature: fields[4].value, for: "\(challenge.nonce)|PIPU0001A2B3|decline|\(reason.rawValue)"))
    }

    @Test func anAcceptSignsThePresenceOptionPicked() throws {
        let fields = try PushTokenRequests.answer(challenge, .accept(presence: "F"), key: key)
        #expect(fields.map(\.name) == ["serial", "nonce", "presence_answer", "signature"])
        let own = try PrivacyIDEAServerKey(key.key.publicKey.pemRepresentation)
        #expect(own.isValid(signature: fields[3].value, for: "\(challenge.nonce)|PIPU0001A2B3|F"))
        #expect(!own.isValid(signature: fields[3].value, for: "\(challenge.nonce)|PIPU0001A2B3|K"))
    }

    @Test func aPollSignsSerialAndTimestamp() throws {
        let at = Date(timeIntervalSince1970: 1_795_000_000.25)
        let fields = try PushTokenRequests.poll(serial: "PIPU0001A2B3", at: at, key: key)
        #expect(fields[1].value == "2026-11-18T11:06:40.250Z")
        let own = try PrivacyIDEAServerKey(key.publicKeyForServer)
        #expect(own.isValid(signature: fields[2].value, for: "PIPU0001A2B3|2026-11-18T11:06:40.250Z"))
    }

    @Test func formsAreEncodedForAnyText() {
        #expect(PushTokenRequests.encoded([("a b", "x+y/z=é&")]) == "a%20b=x%2By%2Fz%3D%C3%A9%26")
    }

    @Test func privacyIDEAsErrorsBecomeTheRefusal() {
        let body = Data(#"{"result": {"status": false, "error": {"code": 905, "message": "ERR905: Invalid enrollment credential."}}}"#.utf8)
        #expect(throws: PrivacyIDEAError(code: "PRIVACYIDEA_ANSWER", message: "privacyIDEA refused: ERR905: Invalid enrollment credential.")) {
            try PrivacyIDEAAnswers.serverKey(body)
        }
    }

    /// `push_code_to_phone`: privacyIDEA's answer to an accept carries the code to show.
    @Test func anAcceptsAnswerMayCarryACodeToShow() {
        let body = Data(
            #"{"result": {"status": true, "value": true}, "detail": {"display_code": "8317", "message": "Enter the code to log in"}}"#.utf8)
        #expect(PrivacyIDEAAnswers.displayCode(body) == .init(code: "8317", message: "Enter the code to log in"))
        #expect(PrivacyIDEAAnswers.displayCode(Data(#"{"result": {"status": true, "value": true}, "detail": {}}"#.utf8)) == nil)
        #expect(PrivacyIDEAAnswers.displayCode(Data(#"{"detail": {"display_code": ""}}"#.utf8)) == nil)
    }
}
