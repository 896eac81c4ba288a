import Foundation
import Testing

@testable import PrivacyIDEA

/// privacyIDEA advertises optional features beside a challenge under a detached signature over
/// RFC 8785 canonical JSON; the phone keeps only what that signature covers.
struct PushCapabilitiesTests {
    /// Stands in for privacyIDEA's key: the vectors' phone key signs as privacyIDEA's would.
    let signer = try! PushTokenKey(pkcs8: Data(base64Encoded: PrivacyIDEAVectors.phonePrivateKeyBase64)!)
    var serverKey: PrivacyIDEAServerKey { try! PrivacyIDEAServerKey(signer.publicKeyForServer) }

    /// A challenge the signer signed, with `capabilities` signed for `signedNonce`.
    func challenge(capabilities: String, signedFor capabilitiesSigned: [String: Bool], nonce signedNonce: String? = nil) throws -> PushChallenge {
        var fields = PushChallengeTests.fields
        fields["capabilities"] = .text(capabilities)
        let unsigned = try PushChallenge(fields: fields)
        fields["signature"] = .text(try signer.sign(unsigned.signedText))
        fields["capabilities_signature"] = .text(
            try signer.sign(PushChallenge.signedCapabilities(capabilitiesSigned, nonce: signedNonce ?? unsigned.nonce)))
        return try PushChallenge(fields: fields).verified(by: serverKey)
    }

    @Test func theCanonicalTextIsRFC8785s() {
        // rfc8785.dumps (the library privacyIDEA signs with) of the same structure
        let text = PushChallenge.signedCapabilities(["decline_reason": true, "b": false, "é": true, "Z": true], nonce: "N\"\\é\n\u{01}x")
        #expect(text == #"{"capabilities":{"Z":true,"b":false,"decline_reason":true,"é":true},"nonce":"N\"\\é\n\u0001x"}"#)
    }

    @Test func signedCapabilitiesAreKept() throws {
        let verified = try challenge(capabilities: #"{"decline_reason": true}"#, signedFor: ["decline_reason": true])
        #expect(verified.capabilities == ["decline_reason": true])
        #expect(verified.takesDeclineReason)
    }

    @Test func capabilitiesSignedForAnotherChallengeAreDropped() throws {
        let replayed = try challenge(capabilities: #"{"decline_reason": true}"#, signedFor: ["decline_reason": true], nonce: "OTHERNONCE")
        #expect(replayed.capabilities == nil)
        #expect(!replayed.takesDeclineReason)
    }

    @Test func capabilitiesAddedAfterSigningAreDropped() throws {
        let altered = try challenge(capabilities: #"{"decline_reason": true}"#, signedFor: [:])
        #expect(!altered.takesDeclineReason)
    }

    @Test(arguments: [#"{"decline_reason": 1}"#, #"["decline_reason"]"#, "not json", #"{"decline_reason": "yes"}"#])
    func capabilitiesThatAreNotFlagsAreIgnored(text: String) throws {
        var fields = PushChallengeTests.fields
        fields["capabilities"] = .text(text)
        fields["capabilities_signature"] = "AAAA"
        #expect(try PushChallenge(fields: fields).capabilities == nil)
    }
}
