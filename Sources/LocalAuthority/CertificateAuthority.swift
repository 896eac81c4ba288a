import Crypto
import Foundation
import SwiftASN1
import X509

/// AuthPhone's own certificate authority: a phone that trusts it once (one profile or
/// certificate installed) trusts every server certificate it issues, for the addresses this
/// server listens on. Pure: the keys and certificates are values, the caller keeps them.
public struct CertificateAuthority: Sendable {
    public let certificate: Certificate
    let key: Certificate.PrivateKey

    /// The CA outlives many server certificates: ten years.
    static let lifetime: TimeInterval = 10 * 365 * 86_400
    /// iOS refuses a server certificate that lasts longer than 825 days, and browsers one past
    /// 398 days from a public CA; 397 days passes both.
    static let serverLifetime: TimeInterval = 397 * 86_400
    /// A phone's clock may lag the server's: certificates start an hour before they are made.
    static let clockSlack: TimeInterval = 3_600

    /// A new CA with a new P-256 key.
    public static func make(now: Date) throws(AuthorityError) -> CertificateAuthority {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let certificate = try AuthorityError.wrapping("the certificate authority could not be made") {
            let name = try DistinguishedName {
                OrganizationName("AuthPhone")
                CommonName("AuthPhone local CA \(Self.stamp(now))")
            }
            return try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
                notValidBefore: now - clockSlack, notValidAfter: now + lifetime, issuer: name, subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: key.publicKey)
                },
                issuerPrivateKey: key)
        }
        return CertificateAuthority(certificate: certificate, key: key)
    }

    /// The CA kept as PEM files.
    public init(certificatePEM: String, keyPEM: String) throws(AuthorityError) {
        let (certificate, key) = try PEM.pair(certificatePEM, keyPEM, of: "the certificate authority")
        self.init(certificate: certificate, key: key)
    }

    init(certificate: Certificate, key: Certificate.PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// A server certificate for `names` (host names and IP addresses), with a new key.
    public func issue(for names: [String], now: Date) throws(AuthorityError) -> IssuedCertificate {
        guard !names.isEmpty else { throw AuthorityError("a server certificate needs at least one name") }
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let certificate = try AuthorityError.wrapping("the server certificate could not be made") {
            try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
                notValidBefore: now - Self.clockSlack, notValidAfter: min(now + Self.serverLifetime, self.certificate.notValidAfter),
                issuer: self.certificate.subject, subject: try DistinguishedName { CommonName(names[0]) },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(names.map(ServerNames.generalName))
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: self.certificate.publicKey).keyIdentifier)
                },
                issuerPrivateKey: self.key)
        }
        return IssuedCertificate(certificate: certificate, key: key)
    }

    /// Whether `certificate` carries this CA's signature.
    public func signed(_ certificate: Certificate) -> Bool {
        certificate.issuer == self.certificate.subject && self.certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
    }

    public func certificatePEM() throws(AuthorityError) -> String { try PEM.certificate(certificate) }
    public func keyPEM() throws(AuthorityError) -> String { try PEM.key(key) }

    /// The certificate as a `.crt` download carries it (DER).
    public func certificateDER() throws(AuthorityError) -> [UInt8] {
        try AuthorityError.wrapping("the certificate could not be written") {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
    }

    /// `2026-11-26`: two CAs made on different days are told apart on a phone's list.
    private static func stamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle().year().month().day())
    }
}

/// A server certificate and its key.
public struct IssuedCertificate: Sendable {
    public let certificate: Certificate
    let key: Certificate.PrivateKey

    init(certificate: Certificate, key: Certificate.PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// A certificate kept as PEM files, with its key.
    public init(certificatePEM: String, keyPEM: String) throws(AuthorityError) {
        let (certificate, key) = try PEM.pair(certificatePEM, keyPEM, of: "the server certificate")
        self.init(certificate: certificate, key: key)
    }

    public func certificatePEM() throws(AuthorityError) -> String { try PEM.certificate(certificate) }
    public func keyPEM() throws(AuthorityError) -> String { try PEM.key(key) }
}

private enum PEM {
    /// A certificate and the key that belongs to it, read back from their files.
    static func pair(_ certificatePEM: String, _ keyPEM: String, of owner: String) throws(AuthorityError) -> (
        Certificate, Certificate.PrivateKey
    ) {
        let (certificate, key) = try AuthorityError.wrapping("\(owner)'s files do not hold a certificate and its key") {
            (try Certificate(pemEncoded: certificatePEM), try Certificate.PrivateKey(pemEncoded: keyPEM))
        }
        guard certificate.publicKey == key.publicKey else { throw AuthorityError("\(owner)'s key does not belong to its certificate") }
        return (certificate, key)
    }
    static func certificate(_ certificate: Certificate) throws(AuthorityError) -> String {
        try AuthorityError.wrapping("the certificate could not be written") { try certificate.serializeAsPEM().pemString }
    }
    static func key(_ key: Certificate.PrivateKey) throws(AuthorityError) -> String {
        try AuthorityError.wrapping("the key could not be written") { try key.serializeAsPEM().pemString }
    }
}

/// What went wrong making or reading a certificate, said for a person.
public struct AuthorityError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public var description: String { message }

    init(_ message: String) { self.message = message }

    /// `work`, with any error from swift-certificates or swift-asn1 told as `context: reason`.
    static func wrapping<T>(_ context: String, _ work: () throws -> T) throws(AuthorityError) -> T {
        do { return try work() } catch { throw AuthorityError("\(context): \(error)") }
    }
}
