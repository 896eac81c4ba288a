import Foundation
import Testing

@testable import PrivacyIDEA

/// Challenges signed by privacyIDEA's own crypto library (PrivacyIDEAVectors), read and checked as the
/// phone does; every change to a signed field breaks the signature.
struct PushChallengeTests {
    static var fields: [String: PushChallenge.Field] {
        [
            "nonce": "LJOTQXLCMMWAM6TYG4DSMF3SOBMHGQ2K", "question": "Do you want to confirm the login?", "serial": "PIPU0001A2B3",
            "title": "privacyIDEA", "sslverify": "0", "url": "http://127.0.0.1:5001/ttype/push",
            "signature": .text(PrivacyIDEAVectors.challengeSignature), "capabilities": "{}", "version": "1",
        ]
    }
    let serverKey = try! PrivacyIDEAServerKey(PrivacyIDEAVectors.serverPublicKey)

    @Test func aChallengeSignedByPrivacyIDEAIsAccepted() throws {
        let challenge = try PushChallenge(fields: Self.fields).verified(by: serverKey)
        #expect(challenge.serial == "PIPU0001A2B3")
        #expect(challenge.sslVerify == false)
        #expect(challenge.presenceOptions == nil)
    }

    @Test func presenceOptionsAreSignedToo() throws {
        var fields = Self.fields
        fields["require_presence"] = "A,F,K"
        fields["signature"] = .text(PrivacyIDEAVectors.presenceSignature)
        #expect(try PushChallenge(fields: fields).verified(by: serverKey).presenceOptions == ["A", "F", "K"])
        fields["require_presence"] = "A,F,X"
        #expect(throws: PrivacyIDEAError.self) { try PushChallenge(fields: fields).verified(by: self.serverKey) }
    }

    @Test(arguments: ["nonce", "question", "serial", "title", "sslverify", "url"])
    func anAlteredFieldIsForged(field: String) throws {
        var fields = Self.fields
        guard case .text(let text) = fields[field] else {
            Issue.record("\(field) is not text")
            return
        }
        fields[field] = field == "sslverify" ? "1" : .text(text + "x")
        let error = #expect(throws: PrivacyIDEAError.self) { try PushChallenge(fields: fields).verified(by: self.serverKey) }
        #expect(error?.code == "PUSH_CHALLENGE_FORGED")
    }

    @Test func anotherKeysSignatureIsForged() throws {
        let otherKey = try PushTokenKey(pkcs8: Data(base64Encoded: PrivacyIDEAVectors.phonePrivateKeyBase64)!)
        var fields = Self.fields
        fields["signature"] = .text(try otherKey.sign(try PushChallenge(fields: Self.fields).signedText))
        #expect(throws: PrivacyIDEAError.forged("the challenge for PIPU0001A2B3 is not signed by its privacyIDEA server's key")) {
            try PushChallenge(fields: fields).verified(by: self.serverKey)
        }
    }

    @Test(
        arguments: [
            ("nonce", nil, "the field 'nonce' is missing"), ("title", .notText, "the field 'title' must be text"),
            ("sslverify", "yes", "the field 'sslverify' must be 0 or 1"),
            ("require_presence", "A", "the field 'require_presence' must list two or more options, separated by commas"),
            ("signature", nil, "the field 'signature' is missing"),
        ] as [(String, PushChallenge.Field?, String)])
    func malformedChallengesAreRefused(field: String, value: PushChallenge.Field?, message: String) {
        var fields = Self.fields
        fields[field] = value
        #expect(throws: PrivacyIDEAError(code: "INVALID_PUSH_CHALLENGE", message: message)) { try PushChallenge(fields: fields) }
    }

    @Test func garbageSignaturesAreForgedNotCrashes() throws {
        for signature in ["", "====", "not base32!", String(repeating: "A", count: 8)] {
            var fields = Self.fields
            fields["signature"] = .text(signature)
            #expect(throws: PrivacyIDEAError.self) { try PushChallenge(fields: fields).verified(by: self.serverKey) }
        }
    }
}
