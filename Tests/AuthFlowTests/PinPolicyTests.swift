import AuthFlow
import Testing

@Suite struct PinPolicyTests {
    let policy = PinPolicy.default

    @Test func defaultIsSixDigits() {
        #expect(policy.length == 6)
    }

    /// DataGenetics (2012): the 20 most common four-digit PINs, 26.8% of 3.4 million, written
    /// here rather than taken from the source so a shortened list in the policy shows.
    static let dataGeneticsTopTwenty = [
        "1234", "1111", "0000", "1212", "7777", "1004", "2000", "4444", "2222", "6969",
        "9999", "3333", "5555", "6666", "1122", "1313", "8888", "4321", "2001", "1010",
    ]

    /// Six-digit PINs the policy says it refuses: one digit repeated, runs up or down, a short
    /// pattern repeated, and the common ones those miss.
    static let commonSixDigit = [
        "123456", "111111", "000000", "654321", "121212", "123123", "666666", "999999", "987654", "456789",
        "890123", "101010", "131313", "112233", "696969", "159753", "102030", "147258", "789456", "123321", "159357",
    ]

    @Test(arguments: dataGeneticsTopTwenty + commonSixDigit)
    func commonPinsAreRefusedWithAReason(_ pin: String) throws {
        let fitting = try PinPolicy(length: pin.count)
        do {
            try fitting.validate(Array(pin.utf8))
            Issue.record("\(pin) was accepted")
        } catch {
            #expect(error.code == "PIN_TOO_COMMON")
            #expect(error.message.hasPrefix("the PIN is too easy to guess: it "))
            #expect(!error.message.contains(pin))  // never echo the PIN
        }
    }

    @Test(arguments: ["260418", "918273", "402817", "070593"])
    func ordinaryPinsPass(_ pin: String) throws {
        try policy.validate(Array(pin.utf8))
    }

    @Test(arguments: ["12345", "2604189", "", "26041a", "26 418", "+26041", "-26041", "٢٦٠٤١٨", "２６０４１８"])
    func malformedPinsAreRefused(_ pin: String) {
        #expect(throws: PinPolicyError.self) { try policy.validate(Array(pin.utf8)) }
    }

    @Test func lengthIsConfigurableWithinBounds() throws {
        #expect(try PinPolicy(length: 4).length == 4)
        #expect(throws: PinPolicyError.self) { try PinPolicy(length: 3) }
        #expect(throws: PinPolicyError.self) { try PinPolicy(length: 13) }
    }
}
