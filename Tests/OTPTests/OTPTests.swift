import Foundation
import OTP
import Testing

/// RFC 4226 and RFC 6238's published vectors, the offline OTP's own vectors (docs/otp.md, made
/// by the independent scripts/otp_reference.py), and the Crockford codec.
@Suite struct OTPTests {
    @Test func hotpMatchesRFC4226AppendixD() {
        let key = Array("12345678901234567890".utf8)
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        #expect((0..<10).map { HOTP.code(key: key, counter: UInt64($0)) } == expected)
    }

    @Test(arguments: [
        (59, "94287082", "46119246", "90693936"), (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"), (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"), (20_000_000_000, "65353130", "77737706", "47863826"),
    ])
    func totpMatchesRFC6238AppendixB(time: Int, sha1: String, sha256: String, sha512: String) {
        let seed = Array("1234567890".utf8)
        let keys: [HOTP.Algorithm: [UInt8]] = [
            .sha1: Array((seed + seed)), .sha256: Array((seed + seed + seed + seed).prefix(32)),
            .sha512: Array((seed + seed + seed + seed + seed + seed + seed).prefix(64)),
        ]
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        #expect(TOTP.code(key: keys[.sha1]!, time: date, digits: 8, algorithm: .sha1) == sha1)
        #expect(TOTP.code(key: keys[.sha256]!, time: date, digits: 8, algorithm: .sha256) == sha256)
        #expect(TOTP.code(key: keys[.sha512]!, time: date, digits: 8, algorithm: .sha512) == sha512)
    }

    static let key = (0..<32).map(UInt8.init)
    static let session = "qGbSGmTd0aJ3yC1kDk7gkCZsJdYVbAFh"

    @Test(arguments: [
        (session, UInt32(0), 0, "000000 TP3M3D"),
        (session, UInt32(123_456_789), 1_790_000_000, "3NQK8N CRC7PX"),
        (session, UInt32(123_456_789), 1_790_000_119, "3NQK8N 90R6E3"),
        ("another-session", UInt32(123_456_789), 1_790_000_000, "3NQK8N 9MDP7P"),
        (session, UInt32((1 << 30) - 1), 2_000_000_000, "ZZZZZZ W8PEP3"),
    ])
    func offlineOTPMatchesItsVectors(session: String, reference: UInt32, time: Int, code: String) throws {
        let otp = OfflineOTP.generate(
            key: Self.key, sessionData: session, reference: reference,
            at: Date(timeIntervalSince1970: TimeInterval(time)))
        #expect(otp.description == code)
        #expect(try OfflineOTP(parsing: code) == otp)
    }

    @Test func anotherKeyGivesAnotherOTP() {
        let otp = OfflineOTP.generate(
            key: [UInt8](repeating: 0xff, count: 32), sessionData: Self.session, reference: 123_456_789,
            at: Date(timeIntervalSince1970: 1_790_000_000))
        #expect(otp.description == "3NQK8N 7TDVX2")
    }

    @Test func stepsAreTwoMinutesFromTheEpoch() {
        let k: Int64 = 14_916_667
        #expect(OfflineOTP.step(at: Date(timeIntervalSince1970: TimeInterval(k * 120 - 1))) == k - 1)
        #expect(OfflineOTP.step(at: Date(timeIntervalSince1970: TimeInterval(k * 120))) == k)
        #expect(OfflineOTP.step(at: Date(timeIntervalSince1970: TimeInterval(k * 120 + 119))) == k)
        #expect(OfflineOTP.step(at: Date(timeIntervalSince1970: TimeInterval(k * 120 + 120))) == k + 1)
    }

    @Test func crockfordRoundTrips() throws {
        for value: UInt64 in [0, 1, 31, 32, 123_456_789, (1 << 60) - 1] {
            #expect(try Crockford32.decode(Crockford32.encode(value, length: 12), length: 12) == value)
        }
        #expect(Crockford32.encode(31, length: 2) == "0Z")
    }

    @Test(arguments: ["2XPP7QR5BDD0", "2xpp7q r5bdd0", "2XPP-7QR5-BDD0", " 2XPP7Q  R5BDDO ", "2xpp7q-r5bddo"])
    func typedOTPsAreReadLeniently(text: String) throws {
        #expect(try OfflineOTP(parsing: text).description == "2XPP7Q R5BDD0")
    }

    @Test func lookAlikesReadAsDigits() throws {
        #expect(try Crockford32.decode("OoIiLl", length: 6) == Crockford32.decode("001111", length: 6))
    }

    @Test(arguments: [
        ("2XPP7Q R5BDD", "12 characters are needed (hyphens and spaces aside), got 11"),
        ("2XPP7Q R5BDD01", "12 characters are needed (hyphens and spaces aside), got 13"),
        ("2XPP7Q R5BDDU", "'U' at position 13 is not a Crockford base32 character"),
        ("2XPP7Q_R5BDD0", "'_' at position 7 is not a Crockford base32 character"),
        ("2XPP7Q R5BDDé", "'é' at position 13 is not a Crockford base32 character"),
        ("2XPP7Q R5BDD\u{7}", "U+7 at position 13 is not a Crockford base32 character"),
        ("2XPP7Q\u{200B}R5BDD0", "U+200B at position 7 is not a Crockford base32 character"),
        ("", "12 characters are needed (hyphens and spaces aside), got 0"),
    ])
    func badOTPsAreRefusedWithTheReason(text: String, reason: String) {
        #expect(throws: OfflineOTPError.self) { try OfflineOTP(parsing: text) }
        do { _ = try OfflineOTP(parsing: text) } catch { #expect(error.message.contains(reason), "\(error.message)") }
    }

    @Test func overlongInputIsRefusedUnread() {
        let error = #expect(throws: OfflineOTPError.self) { try OfflineOTP(parsing: String(repeating: "0", count: 65)) }
        #expect(error?.message == "the OTP is longer than 64 characters")
    }
}
