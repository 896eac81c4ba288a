import Foundation

/// A key URI in Google Authenticator's format
/// (https://github.com/google/google-authenticator/wiki/Key-Uri-Format), as an authenticator app
/// scans it from an issuer's QR code:
/// `otpauth://totp|hotp/LABEL?secret=BASE32&issuer=…&algorithm=…&digits=…&period=…&counter=…`.
///
/// Read as the common apps read it: the label is `Issuer:account` (the colon literal or `%3A`,
/// spaces allowed before the account), or the account alone; the `issuer` parameter, when given,
/// wins over the label's prefix, which is then dropped even if it says something else (Google's
/// format asks them to agree; privacyIDEA and most issuers send the parameter alone). The query
/// is read as a form, so `+` is a space there, as Android's `Uri` reads it. The secret is base32
/// as `Base32` reads it; SHA1, 6 digits and 30 s unless the URI says otherwise; an hotp URI must
/// give its counter. Parameters the phone does not use (`image`, privacyIDEA's `serial` and
/// `creator`) are ignored, but privacyIDEA's two-step enrolment (`2step_…`) is refused: its codes
/// come from a key the app completes, so importing the URI's half would give wrong codes.
public struct OTPAuthURI: Equatable, Sendable {
    public static let scheme = "otpauth"
    /// More than a QR code holds (2,953 bytes): no key URI an issuer prints comes near it.
    public static let maximumLength = 4096

    /// Who issued the key: the `issuer` parameter, else the label's prefix; nil when neither says.
    public let issuer: String?
    /// Whose key it is: the label without its issuer prefix.
    public let account: String
    public let generator: OTPGenerator

    public init(parsing text: String) throws(OTPAuthError) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong(limit: Self.maximumLength) }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .malformed("the key URI has a control character")
        }
        guard let separator = text.range(of: "://") else { throw .malformed("a key URI starts with otpauth://") }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == Self.scheme else { throw .foreignScheme(scheme) }
        let rest = text[separator.upperBound...]
        guard !rest.contains("#") else { throw .malformed("the key URI must not have a fragment ('#…')") }
        let (path, query) = Self.split(rest, at: "?")
        let (type, encodedLabel) = Self.split(path, at: "/")

        let kind = type.lowercased()
        guard kind == "totp" || kind == "hotp" else { throw .unsupportedType(String(type)) }
        guard let label = String(encodedLabel ?? "").removingPercentEncoding else {
            throw .malformed("the label is not percent-encoded UTF-8")
        }
        let parameters = try Self.parameters(query ?? "")

        // `Issuer:account`, or the account alone
        let (first, afterColon) = Self.split(Substring(label), at: ":")
        let (prefix, name) = afterColon.map { (first, $0) } ?? ("", first)
        let account = name.trimmingCharacters(in: .whitespaces)
        let issuer = [parameters["issuer"] ?? "", String(prefix)].map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        try Self.checkNames(issuer: issuer, account: account)

        guard let secretText = parameters["secret"] else { throw .missingSecret }
        let secret = try Base32.decode(secretText)
        let algorithm = try parameters["algorithm"].map { name throws(OTPAuthError) in try HOTP.Algorithm(named: name) } ?? .sha1
        let digits = try parameters["digits"].map { text throws(OTPAuthError) in
            guard let digits = Self.number(text, as: Int.self) else { throw .invalidDigits(text) }
            return digits
        }
        let motion: OTPGenerator.Moving
        if kind == "totp" {
            let period = try parameters["period"].map { text throws(OTPAuthError) in
                guard let period = Self.number(text, as: Int.self) else { throw .invalidPeriod(text) }
                return period
            }
            motion = .time(period: period ?? OTPGenerator.defaultPeriod)
        } else {
            guard let text = parameters["counter"] else { throw .missingCounter }
            guard let counter = Self.number(text, as: UInt64.self) else { throw .invalidCounter(text) }
            motion = .counter(counter)
        }
        generator = try OTPGenerator(secret: secret, algorithm: algorithm, digits: digits ?? OTPGenerator.defaultDigits, moving: motion)
        self.issuer = issuer
        self.account = account
    }

    /// The parameters the phone reads, decoded; each at most once.
    private static func parameters(_ query: Substring) throws(OTPAuthError) -> [String: String] {
        let read: Set<String> = ["secret", "issuer", "algorithm", "digits", "period", "counter"]
        var found: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let (name, value) = split(pair, at: "=")
            if name.hasPrefix("2step_") {
                throw .unsupportedParameter(
                    "privacyIDEA's two-step enrolment (\(name)) is not supported: the phone would make codes from half the key")
            }
            guard read.contains(String(name)) else { continue }
            guard found[String(name)] == nil else { throw .repeatedParameter(String(name)) }
            guard let decoded = (value ?? "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                throw .malformed("the parameter '\(name)' is not percent-encoded UTF-8")
            }
            found[String(name)] = decoded
        }
        return found
    }

    /// What comes before the first `separator` and what after it (nil without one).
    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    /// Decimal digits only (no sign, no spaces), within the type's range.
    private static func number<Number: FixedWidthInteger>(_ text: String, as: Number.Type) -> Number? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Number(text)
    }

    /// The names the page shows, from a key URI or a stored account: an account name, and neither
    /// holds a control character or invisible formatting (a right-to-left override could make one
    /// issuer's name read as another's).
    public static func checkNames(issuer: String?, account: String) throws(OTPAuthError) {
        guard !account.isEmpty else { throw .invalidLabel("the label names no account") }
        for (text, what) in [(account, "the account name"), (issuer ?? "", "the issuer")] where hidesText(text) {
            throw .invalidLabel("\(what) has a control or invisible formatting character")
        }
    }

    /// Whether a name holds a control character or invisible formatting, which no name an
    /// authenticator shows may (privacyIDEA's push tokens are checked by it too).
    public static func hidesText(_ text: String) -> Bool {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        return text.unicodeScalars.contains { hidden.contains($0.properties.generalCategory) }
    }
}
