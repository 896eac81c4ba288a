import Testing

@testable import Phone

/// The code a phone offers to copy from a text: the one a word names, else the first that stands
/// alone; never a number, an amount, a time or a date.
@Suite struct OneTimeCodeTests {
    @Test(arguments: [
        ("123456", "123456"),
        ("Your privacyIDEA code is 482913.", "482913"),
        ("G-731204 is your Google verification code.", "731204"),
        ("Use 123 456 to sign in", "123456"),
        ("Code: 1234-5678", "12345678"),
        ("Order 88123 shipped. Your code: 4821", "4821"),
        ("Call +447700900123 if this was not you. OTP 9921", "9921"),
        ("Ihr Kennwort lautet 551203", "551203"),
        ("Pay $1500 by 12:30 on 2026/11/30, PIN 7731", "7731"),
    ])
    func theCodeIsFound(text: String, code: String) {
        #expect(OneTimeCode.find(in: text) == code)
    }

    @Test(arguments: [
        "Hello there", "Meet at 12:30", "Transfer of €2000 done", "Call +447700900123", "Version 2.12345", "Only 123 here",
        "Up 100%", "abc1234def", "12345678901 is too long",
    ])
    func noCodeIsFoundWhereThereIsNone(text: String) {
        #expect(OneTimeCode.find(in: text) == nil)
    }
}
