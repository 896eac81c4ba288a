import Testing

@testable import OTP

/// OCRA's one-way challenge-response: RFC 6287's own vectors, and tiqr's suite and its kin
/// checked against privacyIDEA's implementation (`privacyidea/lib/tokens/ocra.py`, which its tiqr
/// token uses).
struct OCRATests {
    /// RFC 6287 Appendix C's "Standard 20Byte" key.
    static let key = Array("12345678901234567890".utf8)

    @Test(arguments: [("00000000", "237653"), ("11111111", "243178"), ("22222222", "653583"), ("33333333", "740991"), ("44444444", "608993")])
    func rfc6287sOneWayVectors(_ question: String, _ response: String) throws {
        #expect(try OCRA(suite: "OCRA-1:HOTP-SHA1-6:QN08").response(key: Self.key, question: question) == response)
    }

    /// privacyIDEA's tiqr default and the other question kinds: the responses privacyIDEA's own
    /// OCRA class gives for the same key and question.
    @Test(arguments: [
        ("OCRA-1:HOTP-SHA1-6:QN10", "0123456789", "618126"), ("OCRA-1:HOTP-SHA1-6:QN10", "9876543210", "785789"),
        ("OCRA-1:HOTP-SHA1-6:QN10", "0000000001", "185328"), ("OCRA-1:HOTP-SHA1-6:QH10", "BEEF", "677407"),
        ("OCRA-1:HOTP-SHA256-8:QA08", "SIG1A2B3", "35827315"),
    ])
    func answersAsPrivacyIDEAChecks(_ suite: String, _ question: String, _ response: String) throws {
        #expect(try OCRA(suite: suite).response(key: Self.key, question: question) == response)
    }

    @Test(arguments: [
        ("OCRA-2:HOTP-SHA1-6:QN10", "the suite 'OCRA-2:HOTP-SHA1-6:QN10' is not OCRA-1:function:input"),
        ("OCRA-1:HOTP-MD5-6:QN10", "the suite's function 'HOTP-MD5-6' is not HOTP-SHA1|SHA256|SHA512-4…10"),
        ("OCRA-1:HOTP-SHA1-11:QN10", "the suite's function 'HOTP-SHA1-11' is not HOTP-SHA1|SHA256|SHA512-4…10"),
        ("OCRA-1:HOTP-SHA1-6:C-QN10", "the suite's input 'C-QN10' has a counter, PIN, session or time, which tiqr does not use"),
        ("OCRA-1:HOTP-SHA1-6:QX10", "the suite's question 'QX10' is not QN, QH or QA with a length of 4 to 64"),
    ])
    func suitesItCannotAnswerAreRefused(_ suite: String, _ message: String) {
        #expect(throws: OCRA.Refusal(message: message)) { try OCRA(suite: suite) }
    }

    @Test func questionsThatDoNotFitTheSuiteAreRefused() throws {
        let numeric = try OCRA(suite: "OCRA-1:HOTP-SHA1-6:QN10")
        #expect(throws: OCRA.Refusal(message: "the question must be at most 19 decimal digits")) {
            try numeric.response(key: Self.key, question: "12a4")
        }
        #expect(throws: OCRA.Refusal(message: "the question must have 1 to 10 characters")) {
            try numeric.response(key: Self.key, question: "12345678901")
        }
        let hex = try OCRA(suite: "OCRA-1:HOTP-SHA1-6:QH10")
        #expect(throws: OCRA.Refusal(message: "the question must be hex digits, in pairs")) { try hex.response(key: Self.key, question: "abc") }
    }
}
