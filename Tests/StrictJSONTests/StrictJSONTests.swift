import Testing

@testable import StrictJSON

struct StrictJSONTests {
    func scan(_ text: String) throws(StrictJSON.Problem) -> [String: StrictJSON.Kind] { try StrictJSON.scan(Array(text.utf8)) }

    @Test func pathsAndKindsOfWhatIsGiven() throws {
        let kinds = try scan(#" {"a": {"b": [1, -2.5e3, {"c": null}]}, "t": true, "s": "x\"\u00e9\ud83d\ude00"} "#)
        #expect(
            kinds == [
                "": .object, "a": .object, "a.b": .array, "a.b[]": .object, "a.b[].c": .null,
                "t": .bool, "s": .string,
            ])
        #expect(try scan("[]") == ["": .array])
        #expect(try scan("0") == ["": .number])
    }

    static let refusals: [(text: String, why: String)] = [
        (#"{"name": "a", "name": "b"}"#, "the key 'name' appears twice in the body"),
        (#"{"a": {"x": 1, "\u0078": 2}}"#, "the key 'x' appears twice in 'a'"),
        (#"{"a": [{"b": 1}, {"c": {"d": [], "d": 2}}]}"#, "the key 'd' appears twice in 'a[].c'"),
        (#"{"a": 1,}"#, "a trailing comma before '}'"),
        (#"[1, 2,]"#, "a trailing comma before ']'"),
        (#"{"a": 1} // note"#, "there is more after the JSON value"),
        (#"{"a": 01}"#, "expected ',' or '}'"),
        (#"{"a": 1.}"#, "a number needs digits after '.'"),
        (#"{"a": NaN}"#, "expected a JSON value"),
        (#"{'a': 1}"#, "expected a key in quotes"),
        ("{\"a\": \"tab\there\"}", "a control character inside a string must be escaped"),
        (#"{"a": "\ud800"}"#, "a lone high surrogate"),
        (#"{"a": "\x"}"#, "an unknown escape"),
        (#"{"a": tru}"#, "expected 'true'"),
        (#"{"a": "open"#, "a string is not closed"),
        ("", "the JSON ends where a value should be"),
    ]

    @Test func whatIsNotStrictJSONIsRefusedWithWhy() {
        for (text, why) in Self.refusals {
            #expect {
                try scan(text)
            } throws: { error in
                (error as? StrictJSON.Problem)?.message.hasPrefix(why) == true
            }
        }
    }

    @Test func stringsAreUTF8() {
        #expect(throws: StrictJSON.Problem(message: "a string is not valid UTF-8 (at byte 10)")) {
            try StrictJSON.scan(Array(#"{"a": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
        }
        // in a key, and in a value's run after an escape (each run is checked where it ends)
        #expect(throws: StrictJSON.Problem(message: "a string is not valid UTF-8 (at byte 7)")) {
            try StrictJSON.scan(Array(#"{"a"#.utf8) + [0xED, 0xA0, 0x80] + Array(#"": 1}"#.utf8))
        }
        #expect(throws: StrictJSON.Problem(message: "a string is not valid UTF-8 (at byte 14)")) {
            try StrictJSON.scan(Array(#"{"a": "é\n"#.utf8) + [0xF8, 0x88] + Array(#"\t"}"#.utf8))
        }
        // a control character is refused where it stands, before the run it ends is checked
        #expect(throws: StrictJSON.Problem(message: "a control character inside a string must be escaped (at byte 9)")) {
            try StrictJSON.scan(Array(#"{"a": ""#.utf8) + [0xC3, 0x0A] + Array(#""}"#.utf8))
        }
    }

    /// Keys are compared by what they say, escapes resolved, runs of any script joined.
    @Test func keysAreReadWithTheirEscapes() throws {
        #expect(try scan(#"{"é\u00e9x\ty😀": 1}"#) == ["": .object, "ééx\ty😀": .number])
        #expect {
            try scan(#"{"aé\u0062": 1, "a\u00e9b": 2}"#)
        } throws: { error in
            (error as? StrictJSON.Problem)?.message == "the key 'aéb' appears twice in the body"
        }
    }

    /// An object of many keys finds a key twice as well, wherever it comes.
    @Test func aKeyTwiceInAManyKeyedObject() throws {
        let keys = (0..<40).map { #""k\#($0)": \#($0)"# }
        #expect(try scan("{" + keys.joined(separator: ", ") + "}").count == 41)
        for twice in [0, 15, 16, 39] {
            #expect(throws: StrictJSON.Problem(message: "the key 'k\(twice)' appears twice in the body")) {
                try scan("{" + (keys + [#""k\#(twice)": 0"#]).joined(separator: ", ") + "}")
            }
        }
    }

    @Test func nestingHasALimit() throws {
        let deep = String(repeating: "[", count: StrictJSON.maximumDepth + 2) + String(repeating: "]", count: StrictJSON.maximumDepth + 2)
        #expect(throws: StrictJSON.Problem.self) { try scan(deep) }
        let fine = String(repeating: "[", count: StrictJSON.maximumDepth) + String(repeating: "]", count: StrictJSON.maximumDepth)
        #expect(try scan(fine)[""] == .array)
    }
}
