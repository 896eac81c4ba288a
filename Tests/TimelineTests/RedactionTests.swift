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
        // a flag under a PIN's name goes as well: whatever a secret's name holds goes
        #expect(object["clearPinFailures"] as? String == "‹redacted›")
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

    /// Whatever stands under a secret's name goes whole: a number, a literal, an object, a list
    /// (not even how long it was is left); an escaped secret goes as well.
    @Test func everyValueUnderASecretsNameGoesWhole() throws {
        let body = """
            {"pin":260418,"otp":{"serverPublicKey":"K","reference":123456},"keys":[["AAAA"],{"a":"BBBB"},7],"pinLength":-6.5e1,
            "signature":null,"pinBlocked":false,"pinProof":"26\\u00304\\n18","nested":{"items":[{"otpCode":{"x":[1]}}]},"name":"x"}
            """
        let text = try #require(Redaction.text(Data(body.utf8)))
        let secret = "\"‹redacted›\""
        #expect(
            text == #"{"pin":\#(secret),"otp":\#(secret),"keys":\#(secret),"pinLength":\#(secret),"signature":\#(secret),"pinBlocked":\#(secret),"#
                + #""pinProof":\#(secret),"nested":{"items":[{"otpCode":\#(secret)}]},"name":"x"}"#)
        for kept in ["260418", "123456", "AAAA", "BBBB", "65", "false", "null", "18"] { #expect(!text.contains(kept), "\(kept)") }
    }

    /// Under a token's name every string and number is shortened, however deep; a secret's
    /// name inside it still takes its value whole.
    @Test func whateverATokensNameHoldsIsShortened() throws {
        let body = #"{"token":12345678901234,"challenge":{"value":"abcdefghijkl","pin":"1234","used":true},"tokens":["abcdefghij",5,null]}"#
        let text = try #require(Redaction.text(Data(body.utf8)))
        #expect(text == #"{"token":"123456…","challenge":{"value":"abcdef…","pin":"‹redacted›","used":true},"tokens":["abcdef…","•",null]}"#)
    }

    /// JSON text inside a string is redacted by the same rules, a secret's object included.
    @Test func aPayloadInsideAStringIsRedactedWhole() throws {
        let inner = #"{"otp":{"key":"K1"},"redeemURL":"http://h/r","token":"ZZZZZZZZZZZZ"}"#
        let body = try JSONSerialization.data(withJSONObject: ["nma_data": inner, "other": "{not json"])
        let text = try #require(Redaction.text(body))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(object["nma_data"] == #"{"otp":"‹redacted›","redeemURL":"http://h/r","token":"ZZZZZZ…"}"#)
        #expect(object["other"] == "{not json")
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
        "{", "[1,", #"{"a" 1}"#, #"{"a":1,}"#, "[1 2]", #"{"a":tru}"#, #"{"a":"x"}x"#, "\"open", "{\"a\":\"\u{01}\"}", #"{"a":1,"a":2}"#,
        #"{"pin":{"x":1,}}"#, #"{"a":01}"#,
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func whatIsNotJSONIsNotKeptWhereverItBreaks(_ body: String) {
        #expect(Redaction.text(Data(body.utf8)) == "‹\(body.utf8.count) bytes that are not JSON or a form, not kept›")
    }

    @Test func whatIsNeitherJSONNorAFormIsNotKept() {
        #expect(Redaction.text(Data("PIN 260418".utf8)) == "‹10 bytes that are not JSON or a form, not kept›")
        #expect(Redaction.text(Data("a=1&b".utf8)) == "‹5 bytes that are not JSON or a form, not kept›")
        #expect(Redaction.text(Data()) == nil)
        #expect(Redaction.text(nil) == nil)
    }

    /// privacyIDEA's registration, as the phone sends it: the key, the signature and the
    /// enrolment credential go whole, the FCM token is shortened, the rest is kept.
    @Test func formsAreRedactedByTheirFieldsNames() {
        let form = "enrollment_credential=9f1c2d&serial=PIPU0001&fbtoken=cPy3xZ%3AAPA91bHk&pubkey=MIIBIjAN%2B&PIN=1234"
        #expect(
            Redaction.text(Data(form.utf8))
                == "enrollment_credential=‹redacted›&serial=PIPU0001&fbtoken=cPy3xZ…&pubkey=‹redacted›&PIN=‹redacted›")
    }

    @Test func aPollsQueryIsRedactedInItsURL() {
        #expect(
            Redaction.url("http://127.0.0.1:5001/ttype/push?serial=PIPU1&timestamp=2026-11-26T13%3A00%3A00.000Z&signature=ABCDEFGH")
                == "http://127.0.0.1:5001/ttype/push?serial=PIPU1&timestamp=2026-11-26T13%3A00%3A00.000Z&signature=‹redacted›")
        #expect(Redaction.url("http://h/api/backend/sessions/s-1") == "http://h/api/backend/sessions/s-1")
    }

    @Test func aShortTokenIsHiddenWhole() {
        #expect(Redaction.shorten("abc") == "•••")
        #expect(Redaction.shorten("abcdefghi") == "abcdef…")
    }
}
