import Backend
import Foundation
import Hummingbird
import LocalAuthority
import Phone

/// "Use your phone": the address a real phone opens a simulated phone's page at, with the access
/// key, as text and as a QR code to scan, and what that phone needs to trust the page (the
/// certificate authority's downloads, with `serve --tls`).
struct PhoneLinkController {
    let phones: PhoneService
    /// This server's own URL, the one its QR codes carry.
    let base: ServerURL
    /// The access key, which the link carries when the server has one.
    let key: String?
    /// This server's own certificate authority, which the phone downloads from `/tls` to trust.
    let authority: CertificateAuthority?

    struct PhoneLink: ResponseEncodable {
        let url: String
        /// HTTPS, so that the phone's browser lets the page use its camera.
        let secure: Bool
        /// The address names this machine's loopback, which no other device reaches.
        let loopbackOnly: Bool
        let certificateAuthority: CertificateDownloads?
    }

    struct CertificateDownloads: ResponseEncodable {
        let certificate: String
        let profile: String
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("{id}/link") { _, context in try await link(context) }
        routes.get("{id}/link/qr.svg") { _, context in
            let svg = try Self.qrCode(try await link(context).url)
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: svg)))
        }
        return routes
    }

    private static func qrCode(_ text: String) throws(APIError) -> String {
        do { return try QRCode(text).svg() } catch { throw APIError(.serviceUnavailable, "QR_ENCODING_FAILED", error.message) }
    }

    private func link(_ context: AppRequestContext) async throws -> PhoneLink {
        let phone = try await phones.phone(id: context.parameters.require("id"))
        let server = base.get()
        var url = server + "/phones/" + phone.id
        if let key { url += "?\(Doors.keyParameter)=\(key)" }
        let host = URL(string: server)?.host ?? ""
        return PhoneLink(
            url: url, secure: server.hasPrefix("https://"), loopbackOnly: Doors.isLoopback(host),
            certificateAuthority: authority.map { _ in CertificateDownloads(certificate: "/tls/ca.crt", profile: "/tls/ca.mobileconfig") })
    }
}
