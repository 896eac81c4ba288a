import Foundation
import X509

/// Why a server certificate found at start is not used as it is: the server then makes a new
/// one and says why in its log.
public enum CertificateStaleness: Equatable, Sendable, CustomStringConvertible {
    case expired(Date)
    case notYetValid(Date)
    /// Names the server answers to that the certificate does not carry.
    case missingNames([String])
    /// Made by another certificate authority than the one in the data folder.
    case otherIssuer

    public var description: String {
        switch self {
        case .expired(let date): "it expired on \(date.formatted(.iso8601))"
        case .notYetValid(let date): "it is valid only from \(date.formatted(.iso8601))"
        case .missingNames(let names): "it is not for \(names.joined(separator: ", "))"
        case .otherIssuer: "another certificate authority made it"
        }
    }

    /// Nil when `certificate` is good at `now` for every one of `names` and carries `issuer`'s
    /// signature; else the first reason it is not, in the order a person would look.
    public static func of(
        _ certificate: Certificate, for names: [String], issuer: CertificateAuthority, now: Date
    ) -> CertificateStaleness? {
        if !issuer.signed(certificate) { return .otherIssuer }
        if now >= certificate.notValidAfter { return .expired(certificate.notValidAfter) }
        if now < certificate.notValidBefore { return .notYetValid(certificate.notValidBefore) }
        let held = ServerNames.names(in: certificate)
        let missing = names.map(ServerNames.canonical).filter { !held.contains($0) }
        return missing.isEmpty ? nil : .missingNames(missing.sorted())
    }
}
