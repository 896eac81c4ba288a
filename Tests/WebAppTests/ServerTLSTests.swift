import Foundation
import LocalAuthority
import Logging
import Testing

@testable import WebApp

/// `serve --tls`: what plain HTTP on the HTTPS port is answered, and the data folder's
/// certificates kept or made anew at start, with the clock passed in.
struct ServerTLSTests {
    let doors = Doors(listenHost: "127.0.0.1", publicURL: "https://authphone.example:8443", accessKey: "k")

    func answer(_ head: String) -> PlainHTTPAnswer? { PlainHTTPAnswer(head: Array(head.utf8), doors: doors) }

    @Test func plainHTTPIsRedirectedToTheSameAddressOverHTTPS() throws {
        let redirect = try #require(answer("GET /phones/1?key=k HTTP/1.1\r\nHost: AuthPhone.example:8443\r\n\r\n"))
        #expect(redirect.status == 307)
        #expect(redirect.location == "https://AuthPhone.example:8443/phones/1?key=k")
        #expect(redirect.text.hasPrefix("HTTP/1.1 307 Temporary Redirect\r\nLocation: https://AuthPhone.example:8443/phones/1?key=k\r\n"))
        #expect(answer("GET http://x/ HTTP/1.1\r\nhost: localhost:8443\r\n\r\n")?.location == "https://localhost:8443/")
    }

    @Test func aHeadIsReadWholeBeforeItIsAnswered() {
        #expect(answer("GET / HTTP/1.1\r\nHost: localhost") == nil)
        #expect(answer("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: PlainHTTPAnswer.headLimit))?.status == 431)
    }

    @Test func foreignOrMissingHostsAreRefusedNotRedirected() {
        #expect(answer("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n")?.status == 421)
        #expect(answer("GET / HTTP/1.1\r\n\r\n")?.status == 400)
        #expect(answer("GET / HTTP/1.1\r\nHost: localhost@evil.example\r\n\r\n")?.status == 400)
        #expect(answer("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n")?.text.contains("\"code\":\"UNKNOWN_HOST\"") == true)
    }

    @Test func anExpiredServerCertificateIsMadeAnewAndTheCAKept() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let folder = TLSFolder(path: path)
        let logger = Logger(label: "tls")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let authority = try folder.authority(now: start, logger: logger)
        let first = try folder.serverCertificate(for: ["localhost"], issuer: authority, now: start, logger: logger)
        #expect(
            try folder.serverCertificate(for: ["localhost"], issuer: authority, now: start + 86_400, logger: logger).certificate == first.certificate)

        let yearsLater = start + 400 * 86_400
        let kept = try folder.authority(now: yearsLater, logger: logger)
        #expect(kept.certificate == authority.certificate)
        let remade = try folder.serverCertificate(for: ["localhost"], issuer: kept, now: yearsLater, logger: logger)
        #expect(remade.certificate != first.certificate)
        #expect(CertificateStaleness.of(remade.certificate, for: ["localhost"], issuer: kept, now: yearsLater) == nil)
        for key in [folder.caKey, folder.serverKey] {
            #expect(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int == 0o600)
        }
    }
}
