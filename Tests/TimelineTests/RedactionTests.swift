import BackendAPI
import Foundation
import Testing

@testable import Timeline

/// What the timeline keeps of a body: no key, signature, PIN proof or OTP; tokens shortened;
/// the push's payload, JSON inside a string, redacted the same way.
struct RedactionTests {
    @Test func secretsGoAndTokensAreShortened() throws {
        let body = """
            {"deviceId":"dev-1","devicePublicKey":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","pinSignature":"c2lnbmF0dXJl",
             "otp":"2XPP7QR5BDD0","token":"abcdefghijklmnopqrstuvwxyz","server":{"name":"Demo","publicKey":"S0VZ"},
             "clearPinFailures":true,"attempts":[{"challenge":"0123456789abcdef"}],
             "data":{"nma_data":"{\\"redeemData\\":{\\"token\\":\\"ZZZZZZZZZZZZZZZZZZZZ\\",\\"redeemURL\\":\\"http://h/r\\"}}"}}
            """
        let text = try #require(Redaction.text(Data(body.utf8)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["deviceId"] as? String == "dev-1")
        for key in ["devicePublicKey", "pinSignature", "otp"] { #expect(object[key] as? String == "‹redacted›", "\(key)") }
        #expect((object["server"] as? [String: Any])?["publicKey"] as? String == "‹redacted›")
        #expect((object["server"] as? [String: Any])?["name"] as? String == "Demo")
        #expect(object["token"] as? String == "abcdef…")
        #expect(object["clearPinFailures"] as? Bool == true)
        #expect(((object["attempts"] as? [[String: Any]])?.first?["challenge"] as? String) == "012345…")
        #expect(!text.contains("ZZZZZZZZZZ"))
        #expect(text.contains("redeemURL"))
    }

    @Test func whatIsNotJSONIsNotKept() {
        #expect(Redaction.text(Data("PIN=260418".utf8)) == "‹10 bytes that are not JSON, not kept›")
        #expect(Redaction.text(Data()) == nil)
        #expect(Redaction.text(nil) == nil)
    }

    @Test func aShortTokenIsHiddenWhole() {
        #expect(Redaction.shorten("abc") == "•••")
        #expect(Redaction.shorten("abcdefghi") == "abcdef…")
    }
}
