import Foundation
import Hummingbird
import LocalAuthority

/// AuthPhone's certificate authority for a phone to install (`serve --tls`): as a `.crt` for
/// Android and desktops, as a `.mobileconfig` profile for iOS. Only the certificate: its key
/// stays in the data folder.
struct CertificateController {
    let authority: CertificateAuthority?

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("ca.crt") { _, _ in
            download(try ca().certificateDER(), type: "application/x-x509-ca-cert", file: "AuthPhone-CA.crt")
        }
        routes.get("ca.mobileconfig") { _, _ in
            download(Array(try ca().trustProfile()), type: "application/x-apple-aspen-config", file: "AuthPhone-CA.mobileconfig")
        }
        return routes
    }

    private func ca() throws -> CertificateAuthority {
        guard let authority else {
            throw APIError(
                .notFound, "NO_LOCAL_CA",
                "this server has no certificate authority of its own: start it with --tls (and without --tls-cert) to make one")
        }
        return authority
    }

    private func download(_ bytes: [UInt8], type: String, file: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(file)\""],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
