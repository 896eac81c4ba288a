import Testing

@testable import StrictJSON

/// The lexer gives every token in order with where it stands, and reads as strictly as `scan`.
struct StrictJSONLexerTests {
    func tokens(_ text: String) throws(StrictJSON.Problem) -> [StrictJSON.Token] {
        var lexer = StrictJSON.Lexer(Array(text.utf8))
        var tokens: [StrictJSON.Token] = []
        while let token = try lexer.next() { tokens.append(token) }
        return tokens
    }

    @Test func tokensInOrderWithTheirBytes() throws {
        let text = #" {"a" : [1, "x\"y", {}], "b\u0063": null, "t": true} "#
        #expect(
            try tokens(text) == [
                .objectStart, .key("a", bytes: 2..<5), .arrayStart, .scalar(.number, bytes: 9..<10), .scalar(.string, bytes: 12..<18),
                .objectStart, .objectEnd, .arrayEnd, .key("bc", bytes: 25..<34), .scalar(.null, bytes: 36..<40),
                .key("t", bytes: 42..<45), .scalar(.bool, bytes: 47..<51), .objectEnd,
            ])
        #expect(try tokens("-2.5e3") == [.scalar(.number, bytes: 0..<6)])
        #expect(try tokens("[]") == [.arrayStart, .arrayEnd])
    }

    @Test func aStringsTextHasItsEscapesResolved() throws {
        let bytes = Array(#"["tab\t \u00e9 \ud83d\ude00 \"q\""]"#.utf8)
        let string = 1..<(bytes.count - 1)
        var lexer = StrictJSON.Lexer(bytes)
        #expect(try lexer.next() == .arrayStart)
        #expect(try lexer.next() == .scalar(.string, bytes: string))
        #expect(try lexer.text(ofString: string) == "tab\t é 😀 \"q\"")
    }

    /// What is skipped is checked all the same, and reading goes on after it.
    @Test func aContainerIsSkippedWhole() throws {
        var lexer = StrictJSON.Lexer(Array(#"{"a": {"b": [1, {"c": 2}]}, "d": 3}"#.utf8))
        #expect(try lexer.next() == .objectStart)
        #expect(try lexer.next() == .key("a", bytes: 1..<4))
        #expect(try lexer.next() == .objectStart)
        try lexer.skipContainer()
        #expect(lexer.depth == 1)
        #expect(try lexer.next() == .key("d", bytes: 28..<31))

        var broken = StrictJSON.Lexer(Array(#"{"a": {"b": [1,]}}"#.utf8))
        for _ in 0..<3 { _ = try broken.next() }
        #expect(throws: StrictJSON.Problem.self) { try broken.skipContainer() }
    }

    /// Every refusal `scan` makes, the lexer makes, with the same words.
    @Test func itRefusesWhatScanRefuses() {
        for (text, why) in StrictJSONTests.refusals {
            #expect {
                _ = try tokens(text)
            } throws: { error in
                (error as? StrictJSON.Problem)?.message.hasPrefix(why) == true
            }
        }
    }

    @Test func nothingComesAfterTheEnd() throws {
        var lexer = StrictJSON.Lexer(Array("1".utf8))
        #expect(try lexer.next() == .scalar(.number, bytes: 0..<1))
        #expect(try lexer.next() == nil)
        #expect(try lexer.next() == nil)
    }
}
