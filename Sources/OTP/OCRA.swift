import Foundation

/// OCRA (RFC 6287), the one-way challenge-response that tiqr answers with: an HMAC over the
/// suite's name, a zero byte and the question padded to 128 bytes, cut down as HOTP's. Only the
/// suites without a counter, PIN, session or time (`OCRA-1:HOTP-SHA1-6:QN10`, privacyIDEA's
/// tiqr default, and its kin) are taken; the others are refused by name.
public struct OCRA: Sendable, Equatable {
    public enum Question: String, Sendable {
        /// Decimal digits, turned into a number written in hex.
        case numeric = "QN"
        /// Hex digits.
        case hex = "QH"
        /// Letters and digits, as they are.
        case alphanumeric = "QA"
    }

    public let suite: String
    public let algorithm: HOTP.Algorithm
    public let digits: Int
    public let question: Question
    /// The longest question the suite takes.
    public let questionLength: Int

    /// Why a suite or a question is refused.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public init(suite: String) throws(Refusal) {
        let fields = suite.uppercased().split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == "OCRA-1" else { throw Refusal(message: "the suite '\(suite)' is not OCRA-1:function:input") }
        let function = fields[1].split(separator: "-")
        guard function.count == 3, function[0] == "HOTP", let algorithm = HOTP.Algorithm(rawValue: String(function[1])),
            let digits = Int(function[2]), (4...10).contains(digits)
        else { throw Refusal(message: "the suite's function '\(fields[1])' is not HOTP-SHA1|SHA256|SHA512-4…10") }
        let input = String(fields[2])
        guard !input.contains("-") else {
            throw Refusal(message: "the suite's input '\(input)' has a counter, PIN, session or time, which tiqr does not use")
        }
        guard let question = Question(rawValue: String(input.prefix(2))), let length = Int(input.dropFirst(2)), (4...64).contains(length) else {
            throw Refusal(message: "the suite's question '\(input)' is not QN, QH or QA with a length of 4 to 64")
        }
        self.suite = suite
        self.algorithm = algorithm
        self.digits = digits
        self.question = question
        questionLength = length
    }

    /// The response to `question` under `key`, zero-padded to the suite's digits.
    public func response(key: [UInt8], question text: String) throws(Refusal) -> String {
        var message = Array(suite.utf8) + [0]
        var asked = try questionBytes(text)
        asked += [UInt8](repeating: 0, count: 128 - asked.count)
        message += asked
        let number = UInt64(HOTP.truncate(HOTP.mac(key: key, message: message, algorithm: algorithm)))
        let code = String(number % UInt64(pow(10, Double(digits))))
        return String(repeating: "0", count: digits - code.count) + code
    }

    private func questionBytes(_ text: String) throws(Refusal) -> [UInt8] {
        guard (1...questionLength).contains(text.count) else {
            throw Refusal(message: "the question must have 1 to \(questionLength) characters")
        }
        switch question {
        case .numeric:
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt64(text) else {
                throw Refusal(message: "the question must be at most 19 decimal digits")
            }
            // the number in hex, a zero added on the right where it has an odd count of digits
            var hex = String(number, radix: 16)
            if hex.count % 2 == 1 { hex += "0" }
            return Self.bytes(hex)
        case .hex:
            guard text.count % 2 == 0, text.allSatisfy(\.isHexDigit) else { throw Refusal(message: "the question must be hex digits, in pairs") }
            return Self.bytes(text)
        case .alphanumeric:
            guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw Refusal(message: "the question must be letters and digits")
            }
            return Array(text.utf8)
        }
    }

    /// Pairs of hex digits as bytes (checked by the caller).
    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0 }
    }
}
