/// The security code in a text, found as phones find one to offer *Copy code*: a run of 4 to 10
/// digits standing alone (or two halves of 3 or 4 split by a space or hyphen, `123 456`), which
/// is not part of a phone number, an amount or a time. When a text holds several, the one after
/// a word that names a code (`code`, `OTP`, `PIN`, …) wins, then the first.
public enum OneTimeCode {
    public static func find(in text: String) -> String? {
        let candidates = self.candidates(in: Array(text))
        return candidates.first(where: \.named)?.digits ?? candidates.first?.digits
    }

    /// Words that name a code, lower case, in the languages senders commonly write.
    static let naming = [
        "code", "otp", "pin", "passcode", "password", "token", "tan", "kennwort", "codice", "código", "passe", "verification",
    ]

    private struct Candidate {
        let digits: String
        /// A naming word comes before it, with no other number between.
        let named: Bool
    }

    private static func candidates(in characters: [Character]) -> [Candidate] {
        var found: [Candidate] = []
        var index = 0
        var namedSinceLastNumber = false
        var word = ""
        while index < characters.count {
            let character = characters[index]
            guard character.isASCIIDigit else {
                if character.isLetter {
                    word.append(Character(character.lowercased()))
                } else {
                    if naming.contains(word) { namedSinceLastNumber = true }
                    word = ""
                }
                index += 1
                continue
            }
            if naming.contains(word) { namedSinceLastNumber = true }
            word = ""
            let start = index
            var end = index
            while end < characters.count, characters[end].isASCIIDigit { end += 1 }
            var digits = String(characters[start..<end])
            // two halves, `123 456` or `1234-5678`
            if (3...4).contains(digits.count), end + 1 < characters.count, characters[end] == " " || characters[end] == "-" {
                var second = end + 1
                while second < characters.count, characters[second].isASCIIDigit { second += 1 }
                if second - (end + 1) == digits.count, !touches(characters, second) {
                    digits += String(characters[(end + 1)..<second])
                    end = second
                }
            }
            if (4...10).contains(digits.count), !touches(characters, end), !isPartOfAQuantity(characters, start: start) {
                found.append(Candidate(digits: digits, named: namedSinceLastNumber))
            }
            namedSinceLastNumber = false
            index = end
        }
        return found
    }

    /// A digit run that goes on into a letter, a decimal point or another number's parts
    /// (`12:30`, `3.50`, `100%`, `1234abc`) is no code.
    private static func touches(_ characters: [Character], _ end: Int) -> Bool {
        guard end < characters.count else { return false }
        let next = characters[end]
        if next.isLetter || next.isASCIIDigit || next == "%" { return true }
        if [".", ",", ":", "/"].contains(next), end + 1 < characters.count, characters[end + 1].isASCIIDigit { return true }
        return false
    }

    /// `+447700900123`, `$1500`, `€2000`, `12:3456`, `v2.1234`: a number before the run, or a sign
    /// or currency sign right before it.
    private static func isPartOfAQuantity(_ characters: [Character], start: Int) -> Bool {
        guard start > 0 else { return false }
        let before = characters[start - 1]
        if before.isLetter || "+$€£¥#".contains(before) { return true }
        if [".", ",", ":", "/"].contains(before), start > 1, characters[start - 2].isASCIIDigit { return true }
        return false
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
