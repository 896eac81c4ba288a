import Foundation
import OutOfBand
import TestDoubles
import Testing

@Suite struct OutOfBandDecoderTests {
    /// The Nevis documentation's example, minified, base64url with padding (reference/formats.md).
    static let nevisExample =
        "eyJubWFfZGF0YSI6eyJ0b2tlbiI6ImI0YjA3NTU5LWY5MzQtNDU5Ny1hMWM1LTQ0ZDg5ZjY5MWU4ZiIsInJlZGVlbV91cmwiOiJodHRwczovL2ZpZG8uc2l2ZW4uY2gvbmV2aXNmaWRvL3Rva2VuL3JlZGVlbS9hdXRoZW50aWNhdGlvbiJ9LCJubWFfZGF0YV9jb250ZW50X3R5cGUiOiJhcHBsaWNhdGlvbi9qc29uIiwibm1hX2RhdGFfdmVyc2lvbiI6IjEifQ=="

    @Test(arguments: [nevisExample, String(nevisExample.dropLast(2)), "  \(nevisExample)\n"])
    func nevisExampleDecodesWithAndWithoutPadding(_ text: String) throws {
        let payload = try OutOfBandDecoder.decode(qrText: text)
        #expect(payload.redeemData.token == "b4b07559-f934-4597-a1c5-44d89f691e8f")
        #expect(payload.redeemData.redeemURL.absoluteString == "https://fido.siven.ch/nevisfido/token/redeem/authentication")
        #expect(payload.contentType == "application/json")
        #expect(payload.version == "1")
    }

    @Test func rawJSONWithExtraAttributesDecodes() throws {
        let json =
            #"{"nma_data": {"token": "t-1", "redeem_url": "http://127.0.0.1:8080/r", "attributeName": "extra"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#
        let payload = try OutOfBandDecoder.decode(qrText: json)
        #expect(payload.attributes == ["attributeName": "extra"])
    }

    @Test func nmaDataAsJSONTextDecodes() throws {
        let json =
            #"{"nma_data": "{\"token\": \"t-1\", \"redeem_url\": \"http://127.0.0.1:8080/r\"}", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#
        #expect(try OutOfBandDecoder.decode(qrText: json).redeemData.token == "t-1")
    }

    /// A camera reads what the code holds: the QR text, or a deep link or app link carrying it.
    @Test func aScannedCodeMayHoldTheTextOrALink() throws {
        let payload = OutOfBandPayload(redeemData: .init(token: "t-2", redeemURL: URL(string: "http://127.0.0.1:9/api/backend/redeem")!))
        for text in [payload.qrText, payload.json, payload.deepLink, "https://authphone.example/open?dispatchTokenResponse=\(payload.qrText)"] {
            #expect(try OutOfBandDecoder.decode(scanned: "\(text)\n") == payload, "\(text)")
        }
        #expect(throws: OutOfBandError.self) {
            try OutOfBandDecoder.decode(scanned: "ftp://example.com/open?dispatchTokenResponse=\(payload.qrText)")
        }
        #expect(throws: OutOfBandError.self) { try OutOfBandDecoder.decode(scanned: "javascript:alert(1)") }
    }

    @Test func encodeThenDecodeRoundTrips() throws {
        for token in ["a", "b4b07559-f934-4597-a1c5-44d89f691e8f", String(repeating: "z", count: 512)] {
            let payload = OutOfBandPayload(
                redeemData: .init(token: token, redeemURL: URL(string: "http://127.0.0.1:9/api/backend/redeem")!),
                attributes: ["note": "ünïcode ✓"])
            #expect(try OutOfBandDecoder.decode(qrText: payload.qrText) == payload)
            #expect(try OutOfBandDecoder.decode(qrText: payload.json) == payload)
            #expect(try DeepLink.decode(payload.deepLink) == payload)
        }
    }

    /// The fuzzer's find: 6 KB of JSON text read as a payload, and its QR text, a third longer,
    /// did not. A payload reads only as long as every form of it reads again.
    @Test func aPayloadReadsOnlyIfItsFormsFitTheLimit() throws {
        func payload(jsonLength: Int) -> OutOfBandPayload {
            let bare = OutOfBandPayload(redeemData: .init(token: "t", redeemURL: URL(string: "http://127.0.0.1:9/r")!), attributes: ["note": ""])
            let filler = jsonLength - bare.json.utf8.count  // stray bytes a scan turned into U+FFFD, 3 bytes each
            let note = String(repeating: "\u{FFFD}", count: filler / 3) + String(repeating: "x", count: filler % 3)
            return OutOfBandPayload(redeemData: bare.redeemData, attributes: ["note": note])
        }
        let longest = payload(jsonLength: OutOfBandPayload.maximumJSONLength)
        #expect(longest.json.utf8.count == OutOfBandPayload.maximumJSONLength)
        #expect(try OutOfBandDecoder.decode(qrText: longest.json) == longest)
        #expect(try OutOfBandDecoder.decode(qrText: longest.qrText) == longest)
        #expect(try DeepLink.decode(longest.deepLink) == longest)
        #expect(try PushMessage(data: PushMessage.data(for: longest)).payload() == longest)

        let tooLong = payload(jsonLength: OutOfBandPayload.maximumJSONLength + 1)
        #expect(tooLong.json.utf8.count < OutOfBandDecoder.maximumLength, "the text itself is short enough to be read")
        let asText = #expect(throws: OutOfBandError.self) { try OutOfBandDecoder.decode(qrText: tooLong.json) }
        let asPush = #expect(throws: OutOfBandError.self) { try PushMessage(data: PushMessage.data(for: tooLong)).payload() }
        #expect(asText?.message == "the payload, written as minified JSON, is longer than 6000 bytes")
        #expect(asPush?.code == "PAYLOAD_TOO_LARGE")
    }

    /// The payload's JSON is written by hand (for speed): for awkward strings too it is the text
    /// Foundation's JSONSerialization writes with sorted keys and unescaped slashes.
    @Test func payloadJSONIsWhatJSONSerializationWrites() throws {
        let awkward = ["quote \" back \\ slash / tab \t nl \n", "\u{01}\u{1F}\u{7F}", "ünïcode ✓ 𝄞", ""]
        for text in awkward {
            let payload = OutOfBandPayload(
                redeemData: .init(token: text, redeemURL: URL(string: "http://127.0.0.1:9/api/backend/redeem")!),
                attributes: ["b": text, "a\"": "x"])
            let reference = try JSONSerialization.data(
                withJSONObject: [
                    "nma_data": ["token": text, "redeem_url": "http://127.0.0.1:9/api/backend/redeem", "b": text, "a\"": "x"],
                    "nma_data_content_type": "application/json", "nma_data_version": "1",
                ], options: [.sortedKeys, .withoutEscapingSlashes])
            #expect(payload.json == String(decoding: reference, as: UTF8.self), "\(text)")
        }
    }

    static let bad: [(String, String)] = [
        ("", "EMPTY_PAYLOAD"),
        ("   \n", "EMPTY_PAYLOAD"),
        (String(repeating: "A", count: 9000), "PAYLOAD_TOO_LARGE"),
        ("not base64!", "MALFORMED_PAYLOAD"),
        ("eyJ", "MALFORMED_PAYLOAD"),  // truncated
        ("{\"nma_data\": ", "MALFORMED_PAYLOAD"),
        ("[1, 2]", "MALFORMED_PAYLOAD"),
        (#"{"nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "MISSING_FIELD"),
        (#"{"nma_data": {"redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "MISSING_FIELD"),
        (
            #"{"nma_data": {"token": 5, "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        (
            #"{"nma_data": {"token": "a b", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        (
            #"{"nma_data": {"token": "a\u0000b", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "javascript:alert(1)"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://user@evil/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "/relative"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r", "n": 1}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        (#"{"nma_data": [], "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "INVALID_FIELD"),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/jose", "nma_data_version": "1"}"#,
            "UNSUPPORTED_CONTENT_TYPE"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "2"}"#,
            "UNSUPPORTED_VERSION"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": 1}"#,
            "INVALID_FIELD"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1", "x": 1}"#,
            "INVALID_FIELD"
        ),
        // a key twice, at the top, in nma_data's object or in its text: which one counts?
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1", "nma_data_version": "1"}"#,
            "MALFORMED_PAYLOAD"
        ),
        (
            #"{"nma_data": {"token": "t", "token": "u", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "MALFORMED_PAYLOAD"
        ),
        (
            #"{"nma_data": "{\"token\": \"t\", \"token\": \"u\", \"redeem_url\": \"http://h/r\"}", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "MALFORMED_PAYLOAD"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r",}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "MALFORMED_PAYLOAD"
        ),
        (#"{"nma_data": 5, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "INVALID_FIELD"),
        (#"{"nma_data": null, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "INVALID_FIELD"),
        (#"{"nma_data": "not json", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "MALFORMED_PAYLOAD"),
        (#"{"nma_data": "[]", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "MALFORMED_PAYLOAD"),
        (#"{"nma_data": "{\"token\": \"t\"}", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "MISSING_FIELD"),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r", "n": null}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "INVALID_FIELD"
        ),
        // the kind of payload is told before what is wrong with what it carries
        (#"{"nma_data": 5, "nma_data_content_type": "application/jose", "nma_data_version": "1"}"#, "UNSUPPORTED_CONTENT_TYPE"),
    ]

    @Test(arguments: bad)
    func badQRTextIsRefusedWithItsCode(_ input: String, _ code: String) {
        #expect(throws: OutOfBandError.self) { try OutOfBandDecoder.decode(qrText: input) }
        do {
            _ = try OutOfBandDecoder.decode(qrText: input)
        } catch {
            #expect(error.code == code, "\(error.message)")
            #expect(!error.message.isEmpty)
        }
    }
}

extension OutOfBandDecoderTests {
    static let refusals: [(String, String)] = [
        (
            #"{"nma_data": {"token": "t", "token": "u", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "the payload is not valid JSON: the key 'token' appears twice in 'nma_data'"
        ),
        (
            #"{"nma_data": 5, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "the field 'nma_data' must be an object or JSON text"
        ),
        (
            #"{"nma_data": "{\"token\": 5, \"redeem_url\": \"http://h/r\"}", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "the field 'nma_data.token' must be a string"
        ),
        (
            #"{"nma_data": "{\"token\": \"t\"}", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "the field 'nma_data.redeem_url' is missing"
        ),
        (
            #"{"nma_data": {"token": "t"}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "the field 'nma_data.redeem_url' is missing"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r", "n": 1}, "nma_data_content_type": "application/json", "nma_data_version": "1"}"#,
            "the field 'nma_data.n' must be a string"
        ),
        (
            #"{"nma_data": {"token": "t", "redeem_url": "http://h/r"}, "nma_data_content_type": "application/json", "nma_data_version": "1", "x": 1}"#,
            "the field 'x' is not part of an out-of-band payload"
        ),
        (#"{"nma_data": {}, "nma_data_content_type": 5, "nma_data_version": "1"}"#, "the field 'nma_data_content_type' must be a string"),
        (#"{"nma_data": {}, "nma_data_content_type": "application/json"}"#, "the field 'nma_data_version' is missing"),
        (#"{"nma_data": "[]", "nma_data_content_type": "application/json", "nma_data_version": "1"}"#, "nma_data must be a JSON object"),
    ]

    /// A refusal names the field by its dotted path, whether nma_data is an object or JSON text.
    @Test(arguments: refusals)
    func aRefusalNamesTheField(_ input: String, _ message: String) {
        let error = #expect(throws: OutOfBandError.self) { try OutOfBandDecoder.decode(qrText: input) }
        #expect(error?.message == message)
    }

    /// A push carries nma_data as JSON text: a key twice in it is refused too.
    @Test func aKeyTwiceInAPushsNMADataIsRefused() {
        let data = [
            "nma_data": #"{"token": "t", "token": "u", "redeem_url": "http://h/r"}"#, "nma_data_content_type": "application/json",
            "nma_data_version": "1",
        ]
        let error = #expect(throws: OutOfBandError.self) { try PushMessage(data: data).payload() }
        #expect(error?.code == "MALFORMED_PAYLOAD")
        #expect(error?.message == "nma_data is not valid JSON: the key 'token' appears twice in the body")
    }
}

@Suite struct DeepLinkTests {
    static let payload = OutOfBandPayload(redeemData: .init(token: "tok", redeemURL: URL(string: "http://127.0.0.1:8080/api/backend/redeem")!))
    static let encoded = payload.qrText

    @Test(arguments: [
        "authphone://oob?dispatchTokenResponse=\(encoded)",
        "AUTHPHONE://OOB?dispatchTokenResponse=\(encoded)",
        "https://example.com/open?dispatchTokenResponse=\(encoded)",
        "http://127.0.0.1:8080/open?dispatchTokenResponse=\(encoded)",
    ])
    func acceptedForms(_ link: String) throws {
        #expect(try DeepLink.decode(link) == Self.payload)
    }

    @Test(arguments: [
        "javascript:alert(1)",
        "data:text/html,hi",
        "ftp://host/open?dispatchTokenResponse=\(encoded)",
        "authphone://other?dispatchTokenResponse=\(encoded)",
        "https://example.com/opened?dispatchTokenResponse=\(encoded)",
        "https://example.com/open/../open?dispatchTokenResponse=\(encoded)",
        "https://example.com/%6fpen?dispatchTokenResponse=\(encoded)",
        "https://user@example.com/open?dispatchTokenResponse=\(encoded)",
        "https://example.com/open#dispatchTokenResponse=\(encoded)",
        "https://example.com/open?dispatchTokenResponse=\(encoded)&dispatchTokenResponse=\(encoded)",
        "https://example.com/open?dispatchTokenResponse=\(encoded)&x=1",
        "https://example.com/open?dispatchtokenresponse=\(encoded)",
        "https://example.com/open?dispatchTokenResponse=",
        "https://example.com/open",
        "https://example.com/open?dispatchTokenResponse=%%%",
        "https://example.com/open?dispatchTokenResponse=not*base64",
        "authphone://oob?dispatchTokenResponse=\(Base64URL.encode(Array("{}".utf8)))",
        "authphone://oob?dispatchTokenResponse=\(String(repeating: "A", count: 9000))",
    ])
    func refusedForms(_ link: String) {
        #expect(throws: OutOfBandError.self) { try DeepLink.decode(link) }
    }
}

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLength() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test(arguments: ["a", "ab+c", "ab/c", "abc=d", "ab===", "ab=", "YQ=", "YR"])
    func refusesNonCanonicalInput(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

/// Encode → decode round trips over many generated payloads (a seeded generator, so a failure
/// can be replayed).
@Suite struct RoundTripPropertyTests {
    static let tokenCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?")
    static let textCharacters = Array("abc XYZ 019 äöü ✓ 🙂 \" \\ / \n\t{}[]")

    static func randomString(_ characters: [Character], length: ClosedRange<Int>, using generator: inout SplitMix) -> String {
        String((0..<Int.random(in: length, using: &generator)).map { _ in characters.randomElement(using: &generator)! })
    }

    @Test func everyGeneratedPayloadSurvivesEveryEncoding() throws {
        var generator = SplitMix(seed: 20_261_122)
        for _ in 0..<500 {
            let token = Self.randomString(Self.tokenCharacters, length: 1...80, using: &generator)
            let port = Int.random(in: 1...65535, using: &generator)
            var attributes: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let key = "attr" + Self.randomString(Array("abcdefgh"), length: 1...8, using: &generator)
                attributes[key] = Self.randomString(Self.textCharacters, length: 0...40, using: &generator)
            }
            let payload = OutOfBandPayload(
                redeemData: .init(token: token, redeemURL: URL(string: "http://127.0.0.1:\(port)/api/backend/redeem")!),
                attributes: attributes)
            #expect(try OutOfBandDecoder.decode(qrText: payload.qrText) == payload)
            #expect(
                try OutOfBandDecoder.decode(qrText: payload.qrText + String(repeating: "=", count: (4 - payload.qrText.count % 4) % 4)) == payload)
            #expect(try OutOfBandDecoder.decode(qrText: payload.json) == payload)
            #expect(try DeepLink.decode(payload.deepLink) == payload)
            #expect(try PushMessage(data: PushMessage.data(for: payload)).payload() == payload)
        }
    }
}
