import Foundation
import OTP
import Testing

/// Key URIs (Google Authenticator's format) read into generators whose codes are RFC 4226's and
/// RFC 6238's published vectors, and every refusal with its code.
@Suite struct OTPAuthURITests {
    /// RFC 6238 Appendix B's seeds ("12345678901234567890" repeated to the hash's length), base32.
    static let sha1Seed = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    static let sha256Seed = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA"
    static let sha512Seed =
        "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA"

    @Test(arguments: [
        (59, "94287082", "46119246", "90693936"), (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"), (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"), (20_000_000_000, "65353130", "77737706", "47863826"),
    ])
    func totpURIsGiveRFC6238AppendixB(time: Int, sha1: String, sha256: String, sha512: String) throws {
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        for (seed, algorithm, code) in [(Self.sha1Seed, "SHA1", sha1), (Self.sha256Seed, "SHA256", sha256), (Self.sha512Seed, "SHA512", sha512)] {
            let uri = try OTPAuthURI(parsing: "otpauth://totp/RFC:6238?secret=\(seed)&algorithm=\(algorithm)&digits=8&period=30")
            #expect(uri.generator.code(at: date) == code, "\(algorithm) at \(time)")
        }
    }

    @Test func hotpURIsGiveRFC4226AppendixD() throws {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        let codes = try (0..<10).map { counter in
            try OTPAuthURI(parsing: "otpauth://hotp/RFC:4226?secret=\(Self.sha1Seed)&counter=\(counter)").generator.code(at: .distantPast)
        }
        #expect(codes == expected)
    }

    @Test func defaultsAreSHA1SixDigitsThirtySeconds() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/alice@example.com?secret=\(Self.sha1Seed)")
        #expect(uri.generator.algorithm == .sha1 && uri.generator.digits == 6 && uri.generator.moving == .time(period: 30))
        #expect(uri.issuer == nil && uri.account == "alice@example.com")
        // the last 6 digits of RFC 6238's 8-digit SHA1 code at 59 s
        #expect(uri.generator.code(at: Date(timeIntervalSince1970: 59)) == "287082")
    }

    /// privacyIDEA's own URI (lib/apps.py): the serial as the label, the issuer as a parameter,
    /// parameters the phone does not use.
    @Test func privacyIDEAsURIIsRead() throws {
        let uri = try OTPAuthURI(
            parsing:
                "otpauth://hotp/OATH0001A2B3?secret=\(Self.sha1Seed)&counter=1&digits=6&creator=privacyidea&issuer=privacyIDEA&serial=OATH0001A2B3"
        )
        #expect(uri.issuer == "privacyIDEA" && uri.account == "OATH0001A2B3" && uri.generator.moving == .counter(1))
    }

    @Test(arguments: [
        ("otpauth://totp/ACME%20Co:john.doe@email.com?secret=\(sha1Seed)&issuer=ACME%20Co", "ACME Co", "john.doe@email.com"),
        ("otpauth://totp/ACME%20Co%3A%20%20john?secret=\(sha1Seed)", "ACME Co", "john"),
        ("otpauth://totp/Big%20Corp:alice?secret=\(sha1Seed)&issuer=BigCorp", "BigCorp", "alice"),
        ("otpauth://totp/Big%20Corp:alice?secret=\(sha1Seed)&issuer=", "Big Corp", "alice"),
        ("otpauth://totp/alice?secret=\(sha1Seed)&issuer=Z%C3%BCrich+Bank", "Zürich Bank", "alice"),
        ("OTPAUTH://TOTP/a/b:c?secret=\(sha1Seed)", "a/b", "c"),
    ])
    func labelAndIssuerAreRead(text: String, issuer: String, account: String) throws {
        let uri = try OTPAuthURI(parsing: text)
        #expect(uri.issuer == issuer && uri.account == account)
    }

    @Test(arguments: [
        sha1Seed.lowercased(), "GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ", "GEZD-GNBV-GY3T-QOJQ-GEZD-GNBV-GY3T-QOJQ",
        "GEZD%20GNBV%20GY3T%20QOJQ%20GEZD%20GNBV%20GY3T%20QOJQ", "GEZD+GNBV+GY3T+QOJQ+GEZD+GNBV+GY3T+QOJQ",
    ])
    func secretsAreReadAsTheAppsReadThem(secret: String) throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/x?secret=\(secret)")
        #expect(uri.generator.secret == Array("12345678901234567890".utf8))
    }

    @Test func paddingIsOptional() throws {
        let padded = try OTPAuthURI(parsing: "otpauth://totp/x?secret=AAAQEAYEAUDAOCAJBI======")
        let bare = try OTPAuthURI(parsing: "otpauth://totp/x?secret=AAAQEAYEAUDAOCAJBI")
        #expect(padded.generator.secret == Array(0..<11) && padded == bare)
    }

    @Test func theSecretNeverShowsInADescription() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/x?secret=\(Self.sha1Seed)")
        for text in [String(describing: uri), String(reflecting: uri.generator), "\(uri.generator)"] {
            #expect(!text.contains("49") && !text.contains(Self.sha1Seed) && !text.contains("[49, 50"), "\(text)")
        }
        #expect(uri.generator.description == "OTPGenerator(totp, period 30, SHA1, 6 digits, a 160-bit secret)")
    }

    @Test func theCountdownEndsAtThePeriodsEnd() throws {
        let generator = try OTPAuthURI(parsing: "otpauth://totp/x?secret=\(Self.sha1Seed)&period=60").generator
        #expect(generator.secondsLeft(at: Date(timeIntervalSince1970: 120)) == 60)
        #expect(generator.secondsLeft(at: Date(timeIntervalSince1970: 179.9)) == 1)
        let counting = try OTPAuthURI(parsing: "otpauth://hotp/x?secret=\(Self.sha1Seed)&counter=0").generator
        #expect(counting.secondsLeft(at: Date(timeIntervalSince1970: 120)) == nil)
    }

    static let tenBytes = "AAAAAAAAAAAAAAAA"

    @Test(arguments: [
        ("otpauth://totp/x?secret=\(tenBytes)&" + String(repeating: "a", count: 4096), "OTPAUTH_TOO_LONG", "longer than 4096 bytes"),
        ("otpauth:totp/x?secret=\(tenBytes)", "OTPAUTH_MALFORMED", "starts with otpauth://"),
        ("otpauth://totp/x?secret=\(tenBytes)#top", "OTPAUTH_MALFORMED", "fragment"),
        ("otpauth://totp/x%ZZ?secret=\(tenBytes)", "OTPAUTH_MALFORMED", "label is not percent-encoded"),
        ("otpauth://totp/x?secret=\(tenBytes)&issuer=%FF", "OTPAUTH_MALFORMED", "'issuer' is not percent-encoded"),
        ("otpauth://totp/x\u{7}?secret=\(tenBytes)", "OTPAUTH_MALFORMED", "control character"),
        ("https://totp/x?secret=\(tenBytes)", "OTPAUTH_FOREIGN_SCHEME", "not https://"),
        ("otpauth://pipush/PIPU0001?url=https://pi.example/ttype/push", "OTPAUTH_UNSUPPORTED_TYPE", "otpauth://pipush/"),
        ("otpauth://daypassword/x?secret=\(tenBytes)", "OTPAUTH_UNSUPPORTED_TYPE", "(totp or hotp)"),
        ("otpauth://totp/?secret=\(tenBytes)", "OTPAUTH_INVALID_LABEL", "names no account"),
        ("otpauth://totp/ACME:%20?secret=\(tenBytes)", "OTPAUTH_INVALID_LABEL", "names no account"),
        ("otpauth://totp/x?secret=\(tenBytes)&issuer=%E2%80%AEevil", "OTPAUTH_INVALID_LABEL", "issuer has a control or invisible"),
        ("otpauth://totp/a%0Ab?secret=\(tenBytes)", "OTPAUTH_INVALID_LABEL", "account name has a control"),
        ("otpauth://totp/x?secret=\(tenBytes)&secret=\(tenBytes)", "OTPAUTH_REPEATED_PARAMETER", "'secret'"),
        ("otpauth://totp/x?secret=\(tenBytes)&2step_salt=8&2step_output=20&2step_difficulty=10000", "OTPAUTH_UNSUPPORTED_PARAMETER", "two-step"),
        ("otpauth://totp/x?issuer=ACME", "OTPAUTH_MISSING_SECRET", "no 'secret'"),
        ("otpauth://totp/x", "OTPAUTH_MISSING_SECRET", "no 'secret'"),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJ1", "OTPAUTH_INVALID_SECRET", "not base32 (A-Z, 2-7) at position 16"),
        ("otpauth://totp/x?secret=GEZD=GNBVGY3TQOJQ", "OTPAUTH_INVALID_SECRET", "padding before its end"),
        ("otpauth://totp/x?secret=\(tenBytes)A", "OTPAUTH_INVALID_SECRET", "17 base32 characters are no whole number of bytes"),
        ("otpauth://totp/x?secret=", "OTPAUTH_SECRET_LENGTH", "the secret is 0 bits; the phone takes 80 to 1024 bits"),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOI", "OTPAUTH_SECRET_LENGTH", "the secret is 72 bits"),
        ("otpauth://totp/x?secret=" + String(repeating: "A", count: 208), "OTPAUTH_SECRET_LENGTH", "the secret is 1040 bits"),
        ("otpauth://totp/x?secret=\(tenBytes)&algorithm=MD5", "OTPAUTH_UNKNOWN_ALGORITHM", "'MD5' is not one of SHA1, SHA256 and SHA512"),
        ("otpauth://totp/x?secret=\(tenBytes)&digits=7", "OTPAUTH_INVALID_DIGITS", "6 or 8, not '7'"),
        ("otpauth://totp/x?secret=\(tenBytes)&digits=+6", "OTPAUTH_INVALID_DIGITS", "not ' 6'"),
        ("otpauth://totp/x?secret=\(tenBytes)&period=5", "OTPAUTH_INVALID_PERIOD", "from 10 to 3600, not '5'"),
        ("otpauth://totp/x?secret=\(tenBytes)&period=3601", "OTPAUTH_INVALID_PERIOD", "not '3601'"),
        ("otpauth://totp/x?secret=\(tenBytes)&period=-30", "OTPAUTH_INVALID_PERIOD", "not '-30'"),
        ("otpauth://hotp/x?secret=\(tenBytes)", "OTPAUTH_MISSING_COUNTER", "needs the parameter 'counter'"),
        ("otpauth://hotp/x?secret=\(tenBytes)&counter=one", "OTPAUTH_INVALID_COUNTER", "not 'one'"),
        ("otpauth://hotp/x?secret=\(tenBytes)&counter=9223372036854775808", "OTPAUTH_INVALID_COUNTER", "0 to 9223372036854775807"),
    ])
    func badURIsAreRefusedWithTheReason(text: String, code: String, reason: String) {
        let error = #expect(throws: OTPAuthError.self) { try OTPAuthURI(parsing: text) }
        #expect(error?.code == code, "\(error?.description ?? "no error")")
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    /// Refusals name the place of a bad character, never the secret's characters.
    @Test func aRefusedSecretIsNotRepeated() {
        let error = #expect(throws: OTPAuthError.self) { try OTPAuthURI(parsing: "otpauth://totp/x?secret=SECRETSECRET8SEC") }
        #expect(error?.message.contains("SECRET") == false && error?.message.contains("8") == false, "\(error?.message ?? "")")
    }

    @Test func generatorsKeepTheirBounds() {
        #expect(throws: OTPAuthError.self) {
            try OTPGenerator(secret: [UInt8](repeating: 1, count: 9), algorithm: .sha1, digits: 6, moving: .time(period: 30))
        }
        #expect(throws: OTPAuthError.self) {
            try OTPGenerator(secret: [UInt8](repeating: 1, count: 10), algorithm: .sha1, digits: 9, moving: .time(period: 30))
        }
        #expect(throws: OTPAuthError.self) {
            try OTPGenerator(secret: [UInt8](repeating: 1, count: 10), algorithm: .sha1, digits: 6, moving: .time(period: 0))
        }
        #expect(throws: OTPAuthError.self) {
            try OTPGenerator(secret: [UInt8](repeating: 1, count: 10), algorithm: .sha1, digits: 6, moving: .counter(UInt64(Int64.max) + 1))
        }
    }
}
