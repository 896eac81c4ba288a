import Foundation
import Synchronization

/// This server's own base URL, which QR codes, deep links, the key link and the parts inside
/// use: the public URL, or else `http(s)://HOST:PORT` of the listen address, an IPv6 literal in
/// brackets (RFC 3986 §3.2.2) and a wildcard as the loopback address of its family. With port 0
/// (tests) the port is only known once the server listens, so it is read when needed rather
/// than fixed at start-up.
final class ServerURL: Sendable {
    private let value: Mutex<String>
    /// The host as the URL writes it (an IPv6 literal in brackets) when no public URL fixes it.
    private let ownHost: String?
    /// `https` when the server speaks TLS (`serve --tls`).
    private let scheme: String

    /// Throws when no URL can be made of the listen address, so that the server stops at start
    /// instead of handing out QR codes no phone can follow.
    init(publicURL: String?, listenHost: String, port: Int, secure: Bool = false) throws(ServerURLError) {
        scheme = secure ? "https" : "http"
        if let publicURL {
            ownHost = nil
            value = Mutex(publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL)
            return
        }
        let host = Self.reachableHost(listening: listenHost)
        let written = host.contains(":") ? "[\(host)]" : host
        let url = Self.url(scheme, written, port)
        // a space in the host makes no URL; a slash or an @ makes one that names another host
        guard let parsed = URL(string: url), parsed.host?.lowercased() == host.lowercased(), parsed.port == port, parsed.path.isEmpty
        else {
            throw ServerURLError(
                message: "no URL can be made of the listen address '\(listenHost)': listen on an IP address or a host name, or give a public URL")
        }
        ownHost = written
        value = Mutex(url)
    }

    func get() -> String { value.withLock { $0 } }

    /// The port the server listens on, once it does; a public URL keeps its own.
    func listening(on port: Int) {
        guard let ownHost else { return }
        value.withLock { $0 = Self.url(scheme, ownHost, port) }
    }

    /// Listening on every address, the parts inside reach each other on loopback.
    static func reachableHost(listening host: String) -> String {
        guard Doors.wildcards.contains(host) else { return host }
        return host.contains(":") ? "::1" : "127.0.0.1"
    }

    private static func url(_ scheme: String, _ host: String, _ port: Int) -> String { "\(scheme)://\(host):\(port)" }
}

/// The server cannot say where it is: it does not start.
public struct ServerURLError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
