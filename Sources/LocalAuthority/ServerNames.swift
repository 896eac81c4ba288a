import Foundation
import SwiftASN1
import X509

/// The names a server certificate is for: host names as DNS names, IP literals as addresses
/// (a browser matches an address only against an IP entry, RFC 6125 §6.2.1).
public enum ServerNames {
    static func generalName(_ name: String) -> GeneralName {
        if let address = address(name) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))) }
        return .dnsName(name.lowercased())
    }

    /// The names in a certificate, as `generalName` writes them back: lower-case host names and
    /// addresses in their usual text (`127.0.0.1`, `::1`).
    public static func names(in certificate: Certificate) -> Set<String> {
        guard let alternatives = try? certificate.extensions.subjectAlternativeNames else { return [] }
        var names = Set<String>()
        for name in alternatives {
            switch name {
            case .dnsName(let host): names.insert(host.lowercased())
            case .ipAddress(let octets): text(Array(octets.bytes)).map { names.insert($0) }
            default: continue
            }
        }
        return names
    }

    /// The same name, written as `names(in:)` reads it from a certificate.
    public static func canonical(_ name: String) -> String {
        address(name).flatMap(text) ?? name.lowercased()
    }

    /// An IPv4 or IPv6 literal's bytes; nil for a host name.
    static func address(_ name: String) -> [UInt8]? {
        for (family, size) in [(AF_INET, 4), (AF_INET6, 16)] {
            var bytes = [UInt8](repeating: 0, count: size)
            if inet_pton(family, name, &bytes) == 1 { return bytes }
        }
        return nil
    }

    private static func text(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(cString: buffer)
    }
}
