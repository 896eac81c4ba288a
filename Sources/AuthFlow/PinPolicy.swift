/// What a new PIN must be: a fixed number of ASCII digits, not one of the values people pick
/// most (NIST SP 800-63B §5.1.1.2 asks for a blocklist; DataGenetics' study of 3.4 million
/// four-digit PINs found the 20 listed here cover 26.8% of all of them).
/// Works on the PIN's bytes so the PIN never has to become a Swift `String`.
public struct PinPolicy: Sendable, Equatable, Codable {
    public let length: Int

    public static let `default` = PinPolicy(uncheckedLength: 6)
    public static let allowedLengths = 4...12

    public init(length: Int) throws(PinPolicyError) {
        guard Self.allowedLengths.contains(length) else { throw .unsupportedLength(length) }
        self.length = length
    }

    private init(uncheckedLength length: Int) {
        self.length = length
    }

    /// The 20 most common four-digit PINs (DataGenetics, 2012).
    public static let commonFourDigitPins: [[UInt8]] = [
        "1234", "1111", "0000", "1212", "7777", "1004", "2000", "4444", "2222", "6969",
        "9999", "3333", "5555", "6666", "1122", "1313", "8888", "4321", "2001", "1010",
    ].map { Array($0.utf8) }

    /// Six-digit PINs seen most in leaked PIN and password sets that the patterns below miss.
    static let commonSixDigitPins: [[UInt8]] = ["696969", "159753", "112233", "102030", "147258", "789456", "123321", "159357"]
        .map { Array($0.utf8) }

    /// Checks a PIN being set, where it lies (guarded memory): nothing here copies it.
    /// Verification of an existing PIN never goes through this.
    public func validate<Pin: RandomAccessCollection<UInt8>>(_ pin: Pin) throws(PinPolicyError) where Pin.Index == Int {
        try Self.checkFormat(pin, length: length)
        if let reason = Self.commonReason(pin) { throw .common(reason) }
    }

    /// `length` ASCII digits: the only PINs worth deriving a key from or sending a proof of.
    public static func checkFormat(_ pin: some Collection<UInt8>, length: Int) throws(PinPolicyError) {
        guard !pin.isEmpty, pin.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { throw .notDigits }
        guard pin.count == length else { throw .wrongLength(expected: length, got: pin.count) }
    }

    /// Why a PIN is easy to guess, or nil when it is not. Reads the digits in place.
    public static func commonReason<Pin: RandomAccessCollection<UInt8>>(_ pin: Pin) -> String? where Pin.Index == Int {
        let zero = Int(UInt8(ascii: "0"))
        func digit(_ index: Int) -> Int { Int(pin[pin.startIndex + index]) - zero }
        let count = pin.count
        guard count > 0, (0..<count).allSatisfy({ (0...9).contains(digit($0)) }) else { return nil }
        let steps = 1..<count
        if steps.allSatisfy({ digit($0) == digit(0) }) { return "it repeats a single digit" }
        if steps.allSatisfy({ digit($0) == (digit($0 - 1) + 1) % 10 }) { return "it is a run of ascending digits" }
        if steps.allSatisfy({ digit($0) == (digit($0 - 1) + 9) % 10 }) { return "it is a run of descending digits" }
        if commonFourDigitPins.contains(where: { $0.elementsEqual(pin) }) { return "it is one of the 20 most common four-digit PINs" }
        for period in 1...(count / 2) where count % period == 0 && period < count {
            if (0..<count).allSatisfy({ digit($0) == digit($0 % period) }) { return "it repeats a short pattern" }
        }
        if commonSixDigitPins.contains(where: { $0.elementsEqual(pin) }) { return "it is one of the most common six-digit PINs" }
        return nil
    }

    public static func isCommon<Pin: RandomAccessCollection<UInt8>>(_ pin: Pin) -> Bool where Pin.Index == Int { commonReason(pin) != nil }
}

/// Why a PIN was refused. Messages never contain the PIN.
public struct PinPolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    static func unsupportedLength(_ length: Int) -> PinPolicyError {
        PinPolicyError(
            code: "INVALID_PIN_POLICY",
            message: "a PIN length must be between \(PinPolicy.allowedLengths.lowerBound) and \(PinPolicy.allowedLengths.upperBound), not \(length)")
    }
    static func wrongLength(expected: Int, got: Int) -> PinPolicyError {
        PinPolicyError(code: "INVALID_PIN_FORMAT", message: "the PIN must have \(expected) digits, not \(got)")
    }
    static let notDigits = PinPolicyError(code: "INVALID_PIN_FORMAT", message: "the PIN must be the digits 0 to 9, at least one")
    static func common(_ reason: String) -> PinPolicyError {
        PinPolicyError(code: "PIN_TOO_COMMON", message: "the PIN is too easy to guess: \(reason)")
    }
}
