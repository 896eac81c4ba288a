import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOSSL
import WireJSON

/// JSON over real HTTP between the parts (phone → backend, backend → push service), even when
/// both are this process: that keeps unreachable servers and refusals real.
public struct WireHTTPClient: Sendable {
    public struct Answer: Sendable {
        public let status: UInt
        public let body: ByteBuffer
        /// The server's `Retry-After`, in seconds (the HTTP-date form is not used by FCM).
        public let retryAfter: Duration?

        public var isSuccess: Bool { (200..<300).contains(status) }
        /// A redirect, which the wire does not follow.
        public var isRedirect: Bool { (300..<400).contains(status) }

        public func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try WireJSON.decoder().decode(T.self, from: body)
        }
    }

    /// The request never got an answer (refused, reset, timed out); the reason is in the text.
    public struct TransportError: Error, CustomStringConvertible, Sendable {
        public let description: String
        /// The server took the request but gave no answer in time (not: refused or unreachable).
        public var timedOut = false
    }

    let http: HTTPClient
    let timeout: TimeAmount
    /// The `Authorization` a URL gets (this server's own access key goes only to itself).
    let authorization: @Sendable (String) -> String?
    /// Hears every exchange once, for the timeline.
    let observe: WireExchange.Observer?

    /// How long a client of AuthPhone's servers keeps an idle connection: less than the time
    /// after which a server closes one (`serve --idle-timeout`, 30 s by default), so that the
    /// client, not the server, ends it. A request sent on a connection the server is closing is
    /// reset, and a `POST` is not sent again (AsyncHTTPClient's default of 60 s reset 2 logins in
    /// 1,663 in the bench).
    public static let idleTimeout = TimeAmount.seconds(20)

    /// The process's one client for the wire: `HTTPClient.shared`'s settings (and, like it, it
    /// lives as long as the process) but no redirects followed, so a signed request goes only to
    /// the URL that was checked against an allow-list, never to one a server names in an answer;
    /// and up to 64 connections a host, not 8: every phone of this server talks to the same
    /// backend, and with 8 a thousand phones' requests queued for a connection (256: no better).
    public static let noRedirects = noRedirects(trusting: [])

    /// The same settings, trusting `roots` besides the system's (a server's own certificate
    /// authority, `serve --tls`); the caller shuts it down.
    public static func noRedirects(trusting roots: [NIOSSLCertificate]) -> HTTPClient {
        client(trusting: roots)
    }

    /// For servers that are not AuthPhone's parts (privacyIDEA): a connection refused fails at
    /// once instead of being tried again until the request's deadline, since the phone's own
    /// retry policy decides when to try again, and says so on its screen.
    public static let otherServers = client(retryingConnections: false)

    /// For a server whose user accepted it with its certificate unchecked (privacyIDEA's
    /// `sslverify=0`), and for nothing else.
    public static let otherServersNoCertificateCheck = client(checkingCertificates: false, retryingConnections: false)

    private static func client(
        trusting roots: [NIOSSLCertificate] = [], checkingCertificates: Bool = true, retryingConnections: Bool = true
    ) -> HTTPClient {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.connectionPool.idleTimeout = idleTimeout
        configuration.connectionPool.retryConnectionEstablishment = retryingConnections
        if !roots.isEmpty || !checkingCertificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = roots.isEmpty ? [] : [.certificates(roots)]
            if !checkingCertificates { tls.certificateVerification = .none }
            configuration.tlsConfiguration = tls
        }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// The same wire to a server whose certificate is not checked.
    public var withoutCertificateChecks: WireHTTPClient {
        WireHTTPClient(http: Self.otherServersNoCertificateCheck, timeout: timeout, authorization: authorization, observe: observe)
    }

    public init(
        http: HTTPClient = noRedirects, timeout: TimeAmount = .seconds(10),
        authorization: @escaping @Sendable (String) -> String? = { _ in nil }, observe: WireExchange.Observer? = nil
    ) {
        self.http = http
        self.timeout = timeout
        self.authorization = authorization
        self.observe = observe
    }

    /// The request's bytes, as `post(_:bytes:label:)` and a fault's record take them.
    public static func encode(_ body: some Encodable) throws(TransportError) -> Data {
        do { return try WireJSON.data(body) } catch {
            throw TransportError(description: "the request could not be encoded: \(error)")
        }
    }

    public func post(_ url: String, json body: some Encodable, label: WireExchange.Label? = nil) async throws(TransportError) -> Answer {
        try await post(url, bytes: Self.encode(body), label: label)
    }

    /// A request a fault stopped before it left: on the timeline as the exchange that never was.
    public func recordStruck(_ url: String, bytes: Data, label: WireExchange.Label, error: String) {
        observe?(
            WireExchange(
                label: label, method: "POST", url: url, startedAt: Date(), duration: .zero, requestBody: bytes, status: nil,
                responseBody: nil, error: error))
    }

    /// An absolute http(s) URL the wire can send to, or nil. AsyncHTTPClient traps on a port past
    /// 65,535 (the whole process stops), so every URL from outside is checked with this first.
    public static func sendableURL(_ text: String) -> URL? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.port.map({ (1...65_535).contains($0) }) ?? true
        else { return nil }
        return components.url
    }

    /// JSON that is already bytes (a message file, say). With a label, the exchange is observed
    /// once, as it ends.
    public func post(_ url: String, bytes: Data, label: WireExchange.Label? = nil) async throws(TransportError) -> Answer {
        try await send("POST", url, contentType: "application/json", bytes: bytes, label: label)
    }

    /// Any request of the wire: a form to a server that is not ours (privacyIDEA), or a `GET`
    /// (no content type, no body) whose query is in the URL.
    public func send(
        _ method: String, _ url: String, contentType: String?, bytes: Data = Data(), label: WireExchange.Label? = nil
    ) async throws(TransportError) -> Answer {
        let startedAt = Date()
        let started = ContinuousClock.now
        func record(_ status: UInt?, _ body: ByteBuffer?, _ error: String?) {
            guard let observe, let label else { return }
            observe(
                WireExchange(
                    label: label, method: method, url: url, startedAt: startedAt, duration: started.duration(to: .now),
                    requestBody: bytes, status: status, responseBody: body, error: error))
        }
        guard Self.sendableURL(url) != nil else {
            let refusal = "\(url) is not an http(s) URL with a host and a port from 1 to 65535"
            record(nil, nil, refusal)
            throw TransportError(description: refusal)
        }
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        request.headers.add(name: "Accept", value: "application/json")
        if let authorization = authorization(url) { request.headers.add(name: "Authorization", value: authorization) }
        if !bytes.isEmpty { request.body = .bytes(ByteBuffer(data: bytes)) }
        do {
            let response = try await http.execute(request, timeout: timeout)
            let retryAfter = response.headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .flatMap { (0...86_400).contains($0) ? Duration.seconds($0) : nil }
            let answer = Answer(status: response.status.code, body: try await response.body.collect(upTo: 1 << 20), retryAfter: retryAfter)
            record(answer.status, answer.body, nil)
            return answer
        } catch {
            let words = Self.words(for: error, to: request.url)
            record(nil, nil, words)
            let timedOut = [HTTPClientError.deadlineExceeded, .readTimeout].contains(error as? HTTPClientError)
            throw TransportError(description: words, timedOut: timedOut)
        }
    }

    /// Why a request got no answer, in words a screen can show: NIO's own descriptions read
    /// "connection reset (error set): Connection refused) (errno: 111)".
    static func words(for error: any Error, to url: String) -> String {
        let place =
            URLComponents(string: url).map { url in
                url.host.map { host in url.port.map { "\(host):\($0)" } ?? host } ?? "the server"
            } ?? "the server"
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "the connection to \(place) was refused (nothing listens there)"
            case ECONNRESET: return "the connection to \(place) was reset"
            case ENETUNREACH, EHOSTUNREACH: return "\(place) cannot be reached from here"
            default: return "the connection to \(place) failed: \(String(cString: strerror(error.errnoCode)))"
            }
        }
        switch error as? HTTPClientError {
        case .deadlineExceeded?: return "\(place) gave no answer in time"
        case .readTimeout?: return "\(place) stopped answering"
        case .connectTimeout?: return "no connection to \(place) could be made in time"
        case .remoteConnectionClosed?: return "\(place) closed the connection before it answered"
        default: return String(describing: error)
        }
    }
}
