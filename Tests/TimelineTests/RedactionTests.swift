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

    /// The copy is the body as sent, white space aside: numbers, literals, escapes and nesting
    /// come through as they were, and it parses to the same value.
    @Test func whatIsNotSecretIsCopiedAsSent() throws {
        let body = #"{ "a" : [1, -2.5e3, true, false, null, {}, []], "quote\"d": "tab\t \u00e9 \"x\"", "ünï": "çödé" }"#
        let text = try #require(Redaction.text(Data(body.utf8)))
        #expect(text == #"{"a":[1,-2.5e3,true,false,null,{},[]],"quote\"d":"tab\t \u00e9 \"x\"","ünï":"çödé"}"#)
        let original = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? NSDictionary
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary == original)
    }

    /// A list under a secret's name is a list of secrets; an escaped secret goes as well.
    @Test func secretsInListsAndEscapedSecretsGo() throws {
        let body = #"{"keys":["AAAA","BBBB"],"pin":"26\u00304\n18","nested":{"items":[{"otpCode":"X1"}]}}"#
        let text = try #require(Redaction.text(Data(body.utf8)))
        #expect(text == #"{"keys":["‹redacted›","‹redacted›"],"pin":"‹redacted›","nested":{"items":[{"otpCode":"‹redacted›"}]}}"#)
    }

    /// A key's name is read without regard to case, Unicode's included (U+212A is a Kelvin sign).
    @Test func keyNamesAreReadWhateverTheirCase() throws {
        let body = #"{"DEVICEPUBLICKEY":"a","\#u{212A}ey":"b","kéy":"c","Session_Token":"abcdefghij","pinned":"d","name":"e"}"#
        let text = try #require(Redaction.text(Data(body.utf8)))
        #expect(
            text
                == #"{"DEVICEPUBLICKEY":"‹redacted›","\#u{212A}ey":"‹redacted›","kéy":"c","Session_Token":"abcdef…","pinned":"‹redacted›","name":"e"}"#
        )
    }

    /// The fields a hop is filed under are read in the same pass, from the top level only.
    @Test func topLevelFieldsAreReadOnTheWay() {
        let body = #"{"inner":{"sessionId":"not-this"},"sessionId":"s-1","name":"projects/p/messages/m-9"}"#
        let kept = Redaction.keep(Data(body.utf8), fields: ["sessionId", "name"])
        #expect(kept.fields == ["sessionId": "s-1", "name": "projects/p/messages/m-9"])
    }

    @Test(arguments: [
        "{", "[1,", #"{"a" 1}"#, #"{"a":1,}"#, "[1 2]", #"{"a":tru}"#, #"{"a":"x"}x"#, "\"open", "{\"a\":\"\u{01}\"}",
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func whatIsNotJSONIsNotKeptWhereverItBreaks(_ body: String) {
        #expect(Redaction.text(Data(body.utf8)) == "‹\(body.utf8.count) bytes that are not JSON, not kept›")
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
