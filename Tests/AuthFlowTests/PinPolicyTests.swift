import AuthFlow
import Testing

@Suite struct PinPolicyTests {
    let policy = PinPolicy.default

    @Test func defaultIsSixDigits() {
        #expect(policy.length == 6)
    }

    @Test(arguments: PinPolicy.commonFourDigitPins)
    func theTwentyMostCommonFourDigitPinsAreCommon(_ pin: String) {
        #expect(PinPolicy.isCommon(Array(pin.utf8)))
    }

    @Test(arguments: ["1234", "1111", "0000", "1212", "7777", "123456", "111111", "000000", "654321", "121212", "123123", "696969"])
    func commonPinsAreRefusedWithAReason(_ pin: String) throws {
        let fitting = try PinPolicy(length: pin.count)
        do {
            try fitting.validate(Array(pin.utf8))
            Issue.record("\(pin) was accepted")
        } catch {
            #expect(error.code == "PIN_TOO_COMMON")
            #expect(error.message.hasPrefix("the PIN is too easy to guess: it "))
            #expect(!error.message.contains(pin)) // never echo the PIN
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
