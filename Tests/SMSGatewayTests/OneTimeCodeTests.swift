import Identifiers
import SMSGateway
import Testing

/// A phone number as people write it is read to E.164, and anything else is refused with why.
@Suite struct PhoneNumberTests {
    @Test(arguments: [
        ("+447700900123", "+447700900123"), ("+44 7700 900123", "+447700900123"), ("(+44) 7700-900.123", "+447700900123"),
        ("00447700900123", "+447700900123"), ("447700900123", "+447700900123"), ("+1 555 010 0199", "+15550100199"),
    ])
    func numbersAreReadToE164(text: String, e164: String) throws {
        #expect(try PhoneNumber(reading: text).e164 == e164)
    }

    @Test(arguments: ["", "+", "+0447700900123", "+44 7700 90012a", "+4477", "+1234567890123456", "44+7700900123", "+44\u{0}7700900123"])
    func otherTextIsRefused(text: String) {
        #expect(throws: PhoneNumberError.self) { try PhoneNumber(reading: text) }
    }

    @Test func fictionalNumbersStartInOfcomsDramaRange() {
        #expect(PhoneNumber.fictional(0).e164 == "+447700900000")
        #expect(PhoneNumber.fictional(999).e164 == "+447700900999")
        #expect(PhoneNumber.fictional(12_345).e164 == "+447700912345")
    }
}
