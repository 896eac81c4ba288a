import Foundation
import OTP
import Testing

@testable import PrivacyIDEA

/// tiqr's codes and messages as privacyIDEA 3.14 writes them (seen on the wire), and what is refused.
struct TiqrTests {
    static let enrolment =
        "tiqrenroll://http://127.0.0.1:57745/ttype/tiqr?action=metadata&session=134d6d48a1f7d9a818428f9935fabd30c7b0d75b&serial=TiQR0000DFFA"
    static let login = "tiqrauth://tiqr1001_authphone@org.example.authphone/07372632703355178795/0749150771/AuthPhone%20Test%20IdP"
    static let metadata = """
        {"identity": {"displayName": "tiqr1001 ", "identifier": "tiqr1001_authphone"},
         "service": {"authenticationUrl": "http://127.0.0.1:57745/ttype/tiqr", "displayName": "AuthPhone Test IdP",
                     "enrollmentUrl": "http://127.0.0.1:57745/ttype/tiqr?action=enrollment&session=134d&serial=TiQR0000DFFA",
                     "identifier": "org.example.authphone", "infoUrl": "https://example.org/info", "logoUrl": null,
                     "ocraSuite": "OCRA-1:HOTP-SHA1-6:QN10"},
         "signature": "rsa_sha256_pss:0a1b"}
        """

    @Test func privacyIDEAsEnrolmentCodeNamesItsMetadata() throws {
        let code = try TiqrEnrolment(text: Self.enrolment)
        #expect(code.metadataURL.absoluteString == String(Self.enrolment.dropFirst("tiqrenroll://".count)))
        #expect(code.serial == "TiQR0000DFFA")
    }

    @Test func privacyIDEAsLoginCodeIsRead() throws {
        let code = try TiqrChallenge(text: Self.login)
        #expect(code.userId == "tiqr1001_authphone" && code.serviceIdentifier == "org.example.authphone")
        #expect(code.sessionKey == "07372632703355178795" && code.question == "0749150771" && code.serviceName == "AuthPhone Test IdP")
    }

    @Test(arguments: [
        ("tiqrauth://x", "a tiqr enrolment code starts with tiqrenroll://"),
        ("tiqrenroll://ftp://h/metadata", "a tiqr enrolment code holds the http(s) URL of the service's metadata after tiqrenroll://"),
        ("tiqrenroll://http://h/m?serial=%E2%80%AE1", "the serial must be at most 128 bytes without control or invisible formatting characters"),
    ])
    func badEnrolmentCodesAreRefused(text: String, message: String) {
        #expect(throws: PrivacyIDEAError(code: "INVALID_TIQR_CODE", message: message)) { try TiqrEnrolment(text: text) }
    }

    @Test(arguments: [
        ("tiqrauth://nobody/1/2/3", "a tiqr login code is tiqrauth://USER@SERVICE/SESSION/QUESTION/NAME"),
        ("tiqrauth://u@s/1/2", "a tiqr login code is tiqrauth://USER@SERVICE/SESSION/QUESTION/NAME"),
        ("tiqrauth://u@s//2/n", "the code's session is missing or badly encoded"),
        ("tiqrauth://u@s/1/2/%E2%80%AEknab", "the service name must be at most 256 bytes without control or invisible formatting characters"),
    ])
    func badLoginCodesAreRefused(text: String, message: String) {
        #expect(throws: PrivacyIDEAError(code: "INVALID_TIQR_CODE", message: message)) { try TiqrChallenge(text: text) }
    }

    @Test func theMetadataNamesTheServiceTheIdentityAndTheSuite() throws {
        let metadata = try TiqrMetadata(Data(Self.metadata.utf8)) { $0.host == "127.0.0.1" }
        #expect((metadata.serviceIdentifier, metadata.serviceName) == ("org.example.authphone", "AuthPhone Test IdP"))
        #expect((metadata.identity, metadata.identityName) == ("tiqr1001_authphone", "tiqr1001"))
        #expect(metadata.authenticationURL.absoluteString == "http://127.0.0.1:57745/ttype/tiqr")
        #expect(metadata.ocra.suite == "OCRA-1:HOTP-SHA1-6:QN10")
    }

    /// The user trusted the code's server: metadata that would send the secret elsewhere is refused.
    @Test func metadataPointingAtAnotherServerIsRefused() {
        #expect(throws: PrivacyIDEAError(code: "INVALID_TIQR_METADATA", message: "the enrollmentUrl is at another server than the code's")) {
            try TiqrMetadata(Data(Self.metadata.replacingOccurrences(of: "57745/ttype/tiqr?", with: "1/x?").utf8)) {
                $0.port == 57745
            }
        }
        #expect(throws: PrivacyIDEAError(code: "INVALID_TIQR_METADATA", message: "the metadata is not tiqr's JSON with a service and an identity")) {
            try TiqrMetadata(Data("OK".utf8)) { _ in true }
        }
    }

    /// The response privacyIDEA 3.14 accepted for a live login (its secret the phone's).
    @Test func theResponseIsTheOneprivacyIDEAAccepted() throws {
        let secret = "72b4e260089567a682b17dea506bd9d398c2f71b27fc727f74b18847aab2011e"
        let key = stride(from: 0, to: secret.count, by: 2).map { offset in
            UInt8(secret[secret.index(secret.startIndex, offsetBy: offset)..<secret.index(secret.startIndex, offsetBy: offset + 2)], radix: 16)!
        }
        #expect(try OCRA(suite: "OCRA-1:HOTP-SHA1-6:QN10").response(key: key, question: "0749150771") == "747067")
        let form = TiqrRequests.authentication(try TiqrChallenge(text: Self.login), response: "747067")
        #expect(form.map(\.name) == ["sessionKey", "userId", "response", "language", "operation"])
        #expect(TiqrRequests.enrolment(secret: [0x0a, 0xff]).first! == ("secret", "0aff"))
    }

    @Test(arguments: [
        ("OK", TiqrRequests.Reply.ok), ("INVALID_RESPONSE:9", .invalidResponse(triesLeft: 9)), ("INVALID_CHALLENGE\n", .invalidChallenge),
        ("{\"result\": {\"status\": false}}", .refused("{\"result\": {\"status\": false}}")),
    ])
    func theServersRepliesAreRead(body: String, reply: TiqrRequests.Reply) {
        #expect(TiqrRequests.Reply(Data(body.utf8)) == reply)
    }
}
