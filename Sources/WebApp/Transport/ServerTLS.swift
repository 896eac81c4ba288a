import AsyncHTTPClient
import BackendAPI
import Foundation
import LocalAuthority
import Logging
import NIOSSL
import ServiceLifecycle

/// Where `serve --tls` takes its certificate from.
public enum TLSSource: Sendable, Equatable {
    /// AuthPhone's own certificate authority, kept in the data folder's `tls/` (made anew at each
    /// start with no data folder), issues the server certificate.
    case localAuthority
    /// A certificate (PEM, any intermediates after it) and its key the user already has.
    case files(certificate: String, key: String)
}

/// The certificate chain and key the server presents, and the CA a phone installs to trust
/// them (none with the user's own files). Read or made once at start.
struct ServerTLS {
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey
    let authority: CertificateAuthority?

    static func load(_ source: TLSSource, names: [String], dataDirectory: String?, now: Date, logger: Logger) throws -> ServerTLS {
        switch source {
        case .files(let certificate, let key):
            do {
                return ServerTLS(
                    chain: try NIOSSLCertificate.fromPEMFile(certificate), key: try NIOSSLPrivateKey(file: key, format: .pem), authority: nil)
            } catch {
                throw ServerTLSError(message: "--tls-cert \(certificate) and --tls-key \(key) must be readable PEM files: \(error)")
            }
        case .localAuthority:
            let folder = dataDirectory.map { TLSFolder(path: $0 + "/tls") }
            let authority = try folder?.authority(now: now, logger: logger) ?? Self.madeInMemory(now: now, logger: logger)
            let issued =
                try folder?.serverCertificate(for: names, issuer: authority, now: now, logger: logger)
                ?? authority.issue(for: names, now: now)
            return try ServerTLS(
                chain: [NIOSSLCertificate(bytes: Array(issued.certificatePEM().utf8), format: .pem)],
                key: NIOSSLPrivateKey(bytes: Array(issued.keyPEM().utf8), format: .pem), authority: authority)
        }
    }

    private static func madeInMemory(now: Date, logger: Logger) throws -> CertificateAuthority {
        logger.notice("With no data folder the certificate authority is made anew at each start: a phone must trust it again")
        return try CertificateAuthority.make(now: now)
    }

    var serverConfiguration: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }

    /// The wire between this server's own parts, which reach each other at its HTTPS address:
    /// it trusts the server's CA (or, with the user's files, their certificates) besides the system's.
    func ownWire() throws -> HTTPClient {
        let roots = try authority.map { [try NIOSSLCertificate(bytes: Array($0.certificatePEM().utf8), format: .pem)] } ?? chain
        return WireHTTPClient.noRedirects(trusting: roots)
    }
}

/// The CA and the server certificate as files: `ca.crt`, `ca.key`, `server.crt`, `server.key`;
/// the keys readable by their owner only.
struct TLSFolder {
    let path: String
    var caCertificate: String { path + "/ca.crt" }
    var caKey: String { path + "/ca.key" }
    var serverCertificate: String { path + "/server.crt" }
    var serverKey: String { path + "/server.key" }

    /// The CA of an earlier start (the one the phones trust), or a new one. A CA that cannot be
    /// read stops the start: replacing it would quietly break every phone that trusts it.
    func authority(now: Date, logger: Logger) throws -> CertificateAuthority {
        if FileManager.default.fileExists(atPath: caCertificate) {
            let authority = try CertificateAuthority(certificatePEM: read(caCertificate), keyPEM: read(caKey))
            guard now >= authority.certificate.notValidAfter else { return authority }
            logger.notice("The certificate authority in \(caCertificate) expired: a new one is made, and phones must trust it again")
        }
        let authority = try CertificateAuthority.make(now: now)
        try store(authority.certificatePEM(), to: caCertificate, secret: false)
        try store(authority.keyPEM(), to: caKey, secret: true)
        logger.notice("Made a certificate authority: a phone trusts this server once it installs \(caCertificate)")
        return authority
    }

    /// The server certificate of an earlier start while it is good for `names`; else a new one.
    func serverCertificate(for names: [String], issuer: CertificateAuthority, now: Date, logger: Logger) throws -> IssuedCertificate {
        if let held = try? IssuedCertificate(certificatePEM: read(serverCertificate), keyPEM: read(serverKey)) {
            guard let staleness = CertificateStaleness.of(held.certificate, for: names, issuer: issuer, now: now) else { return held }
            logger.notice("The server certificate in \(serverCertificate) is made anew: \(staleness)")
        }
        let issued = try issuer.issue(for: names, now: now)
        try store(issued.keyPEM(), to: serverKey, secret: true)
        try store(issued.certificatePEM(), to: serverCertificate, secret: false)
        logger.info("The server certificate is for \(names.joined(separator: ", "))")
        return issued
    }

    private func read(_ file: String) throws -> String {
        do { return try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ServerTLSError(message: "cannot read \(file): \(error.localizedDescription)")
        }
    }

    /// A key file is created 0600 before a byte is in it, in a folder that is the owner's alone.
    private func store(_ text: String, to file: String, secret: Bool) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, secret ? 0o600 : 0o644)
        guard descriptor >= 0, fchmod(descriptor, secret ? 0o600 : 0o644) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw ServerTLSError(message: "cannot write \(file): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw ServerTLSError(message: "cannot write \(file): \(String(cString: strerror(errno)))")
        }
    }
}

/// The certificate or key files cannot be used: the server does not start.
public struct ServerTLSError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Shuts down the HTTPS wire's own client when the server stops.
struct HTTPClientShutdown: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
