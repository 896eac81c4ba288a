import Foundation
import OutOfBand
import Testing

/// Every door's scanned text is told apart by what it is: key URIs and privacyIDEA's push
/// enrolments go to the parts that read them, and AuthPhone's payloads decode as before.
@Suite struct ScannedCodeTests {
    static let payload = OutOfBandPayload(redeemData: .init(token: "t-3", redeemURL: URL(string: "http://127.0.0.1:9/api/backend/redeem")!))
    static let totp = "otpauth://totp/ACME:alice?secret=GEZDGNBVGY3TQOJQ&issuer=ACME"

    @Test(arguments: [
        totp, "otpauth://hotp/x?secret=GEZDGNBVGY3TQOJQ&counter=0", "OTPAUTH://TOTP/x?secret=A", "otpauth://steam/x",
        "otpauth://pipushy/x",
    ])
    func keyURIsAreOTPAccounts(text: String) throws {
        for code in [try ScannedCode(qrText: " \(text)\n"), try ScannedCode(link: text), try ScannedCode(scanned: text)] {
            #expect(code == .otpAccount(uri: text))
        }
    }

    @Test(arguments: [
        "otpauth://pipush/PIPU0001?url=https%3A//pi.example/ttype/push&ttl=10&issuer=privacyIDEA&v=1",
        "pia://pipush/PIPU0001?url=https%3A//pi.example/ttype/push", "PIA://PIPUSH/PIPU0001", "otpauth://pipush?serial=x",
        "edumfa-push://edumfa/EDUP0001?url=https%3A//mfa.example/ttype/edupush", "EDUMFA-PUSH://EDUMFA/EDUP0001",
    ])
    func privacyIDEAPushEnrolmentsAreTheirOwnKind(text: String) throws {
        for code in [try ScannedCode(qrText: text), try ScannedCode(link: text), try ScannedCode(scanned: text)] {
            #expect(code == .privacyIDEAPush(uri: text))
        }
    }

    @Test(arguments: ["pia://container/SMPH0001?issuer=privacyIDEA&nonce=n", "PIA://Container/SMPH0001"])
    func privacyIDEAContainerCodesAreTheirOwnKind(text: String) throws {
        for code in [try ScannedCode(qrText: text), try ScannedCode(link: text), try ScannedCode(scanned: text)] {
            #expect(code == .privacyIDEAContainer(uri: text))
        }
    }

    @Test func tiqrCodesAreTheirOwnKinds() throws {
        let enrolment = "tiqrenroll://http://127.0.0.1:5001/ttype/tiqr?action=metadata&session=ab"
        let login = "TIQRAUTH://u_r@org.example/1/0123456789/IdP"
        for (text, kind) in [(enrolment, ScannedCode.tiqrEnrolment(uri: enrolment)), (login, .tiqrLogin(uri: login))] {
            for code in [try ScannedCode(qrText: text), try ScannedCode(link: text), try ScannedCode(scanned: text)] {
                #expect(code == kind)
            }
        }
    }

    @Test func authPhonePayloadsDecodeAsBefore() throws {
        let payload = Self.payload
        #expect(try ScannedCode(qrText: payload.qrText) == .authPhone(payload))
        #expect(try ScannedCode(qrText: payload.json) == .authPhone(payload))
        #expect(try ScannedCode(link: payload.deepLink) == .authPhone(payload))
        for text in [payload.qrText, payload.deepLink, "https://authphone.example/open?dispatchTokenResponse=\(payload.qrText)"] {
            #expect(try ScannedCode(scanned: text) == .authPhone(payload))
        }
    }

    /// Another scheme is not guessed at: each door refuses it as it always did.
    @Test func otherTextIsRefusedAsBefore() {
        let qr = #expect(throws: OutOfBandError.self) { try ScannedCode(qrText: "pia://other/x") }
        #expect(qr?.code == "MALFORMED_PAYLOAD")
        let link = #expect(throws: OutOfBandError.self) { try ScannedCode(link: "pia://other/x") }
        #expect(link?.message == "links with the scheme 'pia' are not supported (use authphone:// or https://)")
        let scanned = #expect(throws: OutOfBandError.self) { try ScannedCode(scanned: "otpauth:totp/x") }
        #expect(scanned?.code == "MALFORMED_PAYLOAD")
    }
}
