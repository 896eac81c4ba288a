import Foundation
import Testing

@testable import PrivacyIDEA

/// privacyIDEA's enrolment QR text as `create_push_token_url` writes it, and what is refused.
struct PushEnrolmentTests {
    static let text =
        "otpauth://pipush/PIPU0001A2B3?url=http%3A//127.0.0.1%3A5001/ttype/push&ttl=10&issuer=privacyIDEA"
        + "&enrollment_credential=9f1c2d&v=1&serial=PIPU0001A2B3&sslverify=0&poll_only=True"

    @Test func privacyIDEAsCodeIsRead() throws {
        let enrolment = try PushEnrolment(text: Self.text)
        #expect(enrolment.serial == "PIPU0001A2B3")
        #expect(enrolment.url.absoluteString == "http://127.0.0.1:5001/ttype/push")
        #expect(enrolment.sslVerify == false)
        #expect(enrolment.pollOnly)
        #expect(enrolment.ttlMinutes == 10)
        #expect(enrolment.issuer == "privacyIDEA")
    }

    @Test func thePiaSchemeAndAUserLabelAreRead() throws {
        let enrolment = try PushEnrolment(
            text: Self.text.replacingOccurrences(of: "otpauth://pipush/PIPU0001A2B3", with: "pia://pipush/alice%40example%20realm"))
        #expect(enrolment.label == "alice@example realm")
    }

    /// eduMFA's `edupush` code as eduMFA 2.9.5 writes it: its own scheme and host, its issuer by
    /// default, and no `poll_only` (the phone polls it as any other token).
    @Test func eduMFAsCodeIsRead() throws {
        let enrolment = try PushEnrolment(
            text: "edumfa-push://edumfa/EDUP00007773?url=http%3A//127.0.0.1%3A5055/ttype/edupush&ttl=10"
                + "&enrollment_credential=366e15af&v=1&serial=EDUP00007773&sslverify=0&pin=True")
        #expect(enrolment.server == .eduMFA)
        #expect(enrolment.url.absoluteString == "http://127.0.0.1:5055/ttype/edupush")
        #expect((enrolment.serial, enrolment.label, enrolment.issuer) == ("EDUP00007773", "EDUP00007773", "eduMFA"))
        #expect(!enrolment.pollOnly && !enrolment.sslVerify && enrolment.forcedUnlock == .any)
        #expect(try PushEnrolment(text: Self.text).server == .privacyIDEA)
    }

    /// `push_force_app_pin` (`pin=True`) forces either factor, `push_app_force_unlock` the one it names.
    @Test(
        arguments: [
            ("", nil), ("&pin=True", .any), ("&app_force_unlock=pin", .pin), ("&app_force_unlock=biometric", .biometric),
            ("&app_force_unlock=any", .any), ("&pin=False", nil),
        ] as [(String, PushEnrolment.ForcedUnlock?)])
    func theForcedUnlockIsRead(_ extra: String, _ forced: PushEnrolment.ForcedUnlock?) throws {
        let enrolment = try PushEnrolment(text: Self.text + extra)
        #expect(enrolment.forcedUnlock == forced)
        #expect(enrolment.requiresUnlock == (forced != nil))
    }

    @Test(arguments: [
        (
            "otpauth://totp/x?secret=AAAA",
            "a privacyIDEA push enrolment starts with otpauth://pipush/ or pia://pipush/ (eduMFA's edumfa-push://edumfa/)"
        ),
        ("edumfa-push://pipush/x", "a privacyIDEA push enrolment starts with otpauth://pipush/ or pia://pipush/ (eduMFA's edumfa-push://edumfa/)"),
        ("&v=1", "the parameter 'v' is repeated"),
        ("&extra=1&v=2", "the parameter 'v' is repeated"),
    ])
    func foreignOrRepeatedIsRefused(change: String, message: String) {
        let text = change.hasPrefix("&") ? Self.text + change : change
        #expect(throws: PrivacyIDEAError(code: "INVALID_PUSH_ENROLMENT", message: message)) { try PushEnrolment(text: text) }
    }

    @Test(arguments: [
        ("v=1", "v=2", "enrolment version '2' is not supported (only 1)"),
        ("&serial=PIPU0001A2B3", "", "the parameter 'serial' is missing"),
        ("enrollment_credential=9f1c2d", "enrollment_credential=", "the parameter 'enrollment_credential' is missing"),
        ("url=http%3A//127.0.0.1%3A5001/ttype/push", "url=file%3A///etc/passwd", "the parameter 'url' must be an http(s) URL with a host"),
        ("ttl=10", "ttl=0", "the parameter 'ttl' must be a number of minutes from 1 to 10080"),
        ("sslverify=0", "sslverify=maybe", "the parameter 'sslverify' must be 0, 1, True or False"),
        ("issuer=privacyIDEA", "issuer=a%0Ab", "the issuer must be at most 128 bytes without control or invisible formatting characters"),
        ("issuer=privacyIDEA", "issuer=%E2%80%AEknab", "the issuer must be at most 128 bytes without control or invisible formatting characters"),
        ("issuer=privacyIDEA", "issuer=a%E2%80%8Bb", "the issuer must be at most 128 bytes without control or invisible formatting characters"),
        ("v=1", "v=1&app_force_unlock=face", "the parameter 'app_force_unlock' must be any, pin or biometric"),
    ])
    func badFieldsAreRefused(from: String, to: String, message: String) {
        #expect(throws: PrivacyIDEAError(code: "INVALID_PUSH_ENROLMENT", message: message)) {
            try PushEnrolment(text: Self.text.replacingOccurrences(of: from, with: to))
        }
    }
}
