import Foundation
import Testing
import X509

@testable import LocalAuthority

/// The CA and its server certificates as a phone's browser checks them, with the clock passed in.
struct CertificateAuthorityTests {
    static let madeAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let names = ["localhost", "127.0.0.1", "::1", "192.168.1.20", "AuthPhone.example"]

    @Test func aServerCertificateIsForItsNamesAndSignedByTheCA() throws {
        let authority = try CertificateAuthority.make(now: Self.madeAt)
        let server = try authority.issue(for: Self.names, now: Self.madeAt).certificate
        #expect(ServerNames.names(in: server) == ["localhost", "127.0.0.1", "::1", "192.168.1.20", "authphone.example"])
        #expect(authority.signed(server))
        #expect(try server.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try server.extensions.extendedKeyUsage == ExtendedKeyUsage([.serverAuth]))
        #expect(try authority.certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(CertificateStaleness.of(server, for: Self.names, issuer: authority, now: Self.madeAt) == nil)
    }

    @Test func aServerCertificateLastsNoLongerThanAPhoneAccepts() throws {
        let authority = try CertificateAuthority.make(now: Self.madeAt)
        let server = try authority.issue(for: ["localhost"], now: Self.madeAt).certificate
        #expect(server.notValidAfter.timeIntervalSince(Self.madeAt) <= 398 * 86_400)
        #expect(server.notValidBefore < Self.madeAt)
    }

    @Test func anExpiredCertificateIsStale() throws {
        let authority = try CertificateAuthority.make(now: Self.madeAt)
        let server = try authority.issue(for: ["localhost"], now: Self.madeAt).certificate
        let later = Self.madeAt + 398 * 86_400
        #expect(CertificateStaleness.of(server, for: ["localhost"], issuer: authority, now: later) == .expired(server.notValidAfter))
        #expect(
            CertificateStaleness.of(server, for: ["localhost"], issuer: authority, now: Self.madeAt - 86_400)
                == .notYetValid(server.notValidBefore))
    }

    @Test func aCertificateForOtherNamesIsStale() throws {
        let authority = try CertificateAuthority.make(now: Self.madeAt)
        let server = try authority.issue(for: ["localhost", "127.0.0.1"], now: Self.madeAt).certificate
        #expect(
            CertificateStaleness.of(server, for: ["LOCALHOST", "0:0:0:0:0:0:0:1", "10.0.0.2"], issuer: authority, now: Self.madeAt)
                == .missingNames(["10.0.0.2", "::1"]))
    }

    @Test func aCertificateFromAnotherCAIsStale() throws {
        let authority = try CertificateAuthority.make(now: Self.madeAt)
        let other = try CertificateAuthority.make(now: Self.madeAt).issue(for: ["localhost"], now: Self.madeAt).certificate
        #expect(CertificateStaleness.of(other, for: ["localhost"], issuer: authority, now: Self.madeAt) == .otherIssuer)
    }

    @Test func theCAComesBackFromItsPEMFiles() throws {
        let authority = try CertificateAuthority.make(now: Self.madeAt)
        let read = try CertificateAuthority(certificatePEM: authority.certificatePEM(), keyPEM: authority.keyPEM())
        #expect(read.certificate == authority.certificate)
        #expect(read.signed(try read.issue(for: ["localhost"], now: Self.madeAt).certificate))
        #expect(try authority.certificateDER().count > 100)
    }

    @Test func aKeyOfAnotherCAOrNoPEMIsRefused() throws {
        let authority = try CertificateAuthority.make(now: Self.madeAt)
        let other = try CertificateAuthority.make(now: Self.madeAt)
        #expect(throws: AuthorityError("the certificate authority's key does not belong to its certificate")) {
            try CertificateAuthority(certificatePEM: authority.certificatePEM(), keyPEM: other.keyPEM())
        }
        #expect { try CertificateAuthority(certificatePEM: "not a PEM", keyPEM: "") } throws: { $0 is AuthorityError }
        #expect(throws: AuthorityError("a server certificate needs at least one name")) { try authority.issue(for: [], now: Self.madeAt) }
    }
}

/// The iOS profile carries the CA's certificate as its one root payload.
struct TrustProfileTests {
    @Test func theProfileCarriesTheCAAndKeepsItsIdentifiers() throws {
        let authority = try CertificateAuthority.make(now: CertificateAuthorityTests.madeAt)
        let profile = try authority.trustProfile()
        let plist = try #require(try PropertyListSerialization.propertyList(from: profile, format: nil) as? [String: Any])
        #expect(plist["PayloadType"] as? String == "Configuration")
        let payloads = try #require(plist["PayloadContent"] as? [[String: Any]])
        #expect(payloads.count == 1)
        #expect(payloads[0]["PayloadType"] as? String == "com.apple.security.root")
        #expect((payloads[0]["PayloadContent"] as? Data).map(Array.init) == (try authority.certificateDER()))
        #expect(try authority.trustProfile() == profile)
    }
}
