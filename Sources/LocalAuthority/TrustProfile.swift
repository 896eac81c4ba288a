import Crypto
import Foundation

extension CertificateAuthority {
    /// The CA as an iOS configuration profile (`.mobileconfig`): Safari downloads it, Settings
    /// installs it, and "Certificate Trust Settings" then trusts it for TLS. Its identifiers
    /// come from the certificate, so a second download replaces the first profile, not adds one.
    public func trustProfile() throws(AuthorityError) -> Data {
        let der = try certificateDER()
        let digest = Array(SHA256.hash(data: der))
        let name = certificate.subject.description
        let rootPayload: [String: Any] = [
            "PayloadType": "com.apple.security.root", "PayloadVersion": 1,
            "PayloadIdentifier": "dev.authphone.ca.\(Self.uuid(digest, 0))", "PayloadUUID": Self.uuid(digest, 0),
            "PayloadDisplayName": name, "PayloadCertificateFileName": "AuthPhone-CA.crt", "PayloadContent": Data(der),
        ]
        let profile: [String: Any] = [
            "PayloadType": "Configuration", "PayloadVersion": 1,
            "PayloadIdentifier": "dev.authphone.profile.\(Self.uuid(digest, 16))", "PayloadUUID": Self.uuid(digest, 16),
            "PayloadDisplayName": "AuthPhone local CA",
            "PayloadDescription": "Lets this phone open AuthPhone's pages over HTTPS on your network.",
            "PayloadContent": [rootPayload],
        ]
        return try AuthorityError.wrapping("the profile could not be written") {
            try PropertyListSerialization.data(fromPropertyList: profile, format: .xml, options: 0)
        }
    }

    /// A UUID made of 16 bytes of the digest from `offset`.
    private static func uuid(_ digest: [UInt8], _ offset: Int) -> String {
        let b = Array(digest[offset..<offset + 16])
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString
    }
}
