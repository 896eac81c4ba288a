import Foundation
import HTTPTypes

/// Who may come in: a request must name one of this server's own hosts (so a page on another
/// domain that rebinds its name to this address gets nowhere), come from this server's own
/// pages when a browser sends it, and, off loopback, carry the access key. Pure, so every rule
/// is tested without a socket; `DoorMiddleware` and `UpgradeDoorHandler` apply it.
struct Doors: Sendable {
    /// Host names (lower case, no port) this server answers to.
    let hostNames: Set<String>
    /// Required on every route when set: a bearer token from scripts, a cookie from pages.
    let accessKey: String?
    /// FCM senders can send one bearer token only: on the FCM route the push token, when set,
    /// stands in for the access key, and so does a live access token the token endpoint issued.
    let pushToken: String?
    let isIssuedAccessToken: @Sendable (String) -> Bool

    static let cookieName = "authphone_key"
    /// The query parameter a page's link carries the key in, once.
    static let keyParameter = "key"

    /// A refusal as the edge answers it: the status, a stable code and what is wrong.
    struct Refusal: Error, Equatable {
        let status: HTTPResponse.Status
        let code: String
        let message: String

        var apiError: APIError { APIError(status, code, message) }
    }

    /// The listen address (unless it is a wildcard), `localhost` and the loopback addresses,
    /// the host of the public URL people use, and that of the URL the other instances use.
    init(
        listenHost: String, publicURL: String?, instanceURL: String? = nil, accessKey: String?, pushToken: String? = nil,
        isIssuedAccessToken: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        hostNames = Self.hostNames(listenHost: listenHost, publicURL: publicURL, instanceURL: instanceURL)
        self.accessKey = accessKey
        self.pushToken = pushToken
        self.isIssuedAccessToken = isIssuedAccessToken
    }

    /// The names this server answers to, which its certificate is for too (`serve --tls`).
    static func hostNames(listenHost: String, publicURL: String?, instanceURL: String? = nil) -> Set<String> {
        var names: Set<String> = ["localhost", "127.0.0.1", "::1"]
        if !wildcards.contains(listenHost) { names.insert(bare(listenHost.lowercased())) }
        for url in [publicURL, instanceURL] {
            if let host = url.flatMap({ URL(string: $0)?.host }) { names.insert(bare(host.lowercased())) }
        }
        return names
    }

    static let pushRoutePrefix = "/v1/projects/"
    /// The OAuth token endpoint takes no key: a Google client sends none there, and the assertion
    /// it posts, signed with a service account's key, is a stronger proof than the key.
    static let tokenRoute = "/oauth2/token"
    /// The SMS gateway's doors take no key either: each needs the gateway's own credentials (HTTP
    /// basic auth), as a sender's gateway settings hold them.
    static func isSMSDoor(_ path: String) -> Bool {
        path == SMSDoorsController.gatewayRoute || path.hasPrefix(SMSDoorsController.twilioPrefix)
    }

    /// The probes an orchestrator sends (Kubernetes' liveness and readiness, a load balancer's
    /// health check) hold no key: they read, with a GET, whether the server and its databases
    /// answer, and nothing else.
    static let probeRoutes: Set<String> = ["/health", "/ready"]

    /// The event stream holds a connection and one of a few places for as long as it is open: a
    /// page of another site may not open one, even one it cannot read (a browser names the page's
    /// Origin, or says `Sec-Fetch-Site: cross-site` where it sends none).
    static let eventsRoute = "/api/events"

    static let wildcards: Set<String> = ["0.0.0.0", "::", ""]

    /// Loopback needs no key: only this machine's own users reach it.
    static func isLoopback(_ host: String) -> Bool {
        let host = bare(host.lowercased())
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Host, then Origin, then the key. `upgrade` is a WebSocket handshake, which browsers send
    /// across sites without asking: its Origin must be this server's.
    func admit(method: HTTPRequest.Method, path: String, authority: String?, headers: HTTPFields, query: String?) -> Refusal? {
        guard let authority, !authority.isEmpty else {
            return Refusal(status: .badRequest, code: "HOST_MISSING", message: "the request names no host (HTTP/1.1 needs a Host header)")
        }
        // RFC 9112 §3.2: one Host, or a proxy and this server could each read another
        guard !headers.contains(.host) else {
            return Refusal(status: .badRequest, code: "HOST_REPEATED", message: "the request names its host more than once (one Host header)")
        }
        guard hostNames.contains(Self.hostName(of: authority)) else {
            return Refusal(
                status: .misdirectedRequest, code: "UNKNOWN_HOST",
                message:
                    "this server answers only to its own names (\(hostNames.sorted().joined(separator: ", "))), not \(Self.hostName(of: authority))")
        }
        // a text sent by a GET (the generic SMS door) changes state too
        let stateChanging = ![.get, .head, .options].contains(method) || Self.isSMSDoor(path)
        let holdsAStream = path == Self.eventsRoute
        if stateChanging || headers[.upgrade] != nil || holdsAStream, let origin = headers[.origin], !Self.sameOrigin(origin, authority: authority) {
            return Refusal(status: .forbidden, code: "FORBIDDEN_ORIGIN", message: "requests from \(origin) are not allowed")
        }
        if holdsAStream, headers[.secFetchSite] == "cross-site" {
            return Refusal(status: .forbidden, code: "FORBIDDEN_ORIGIN", message: "a page of another site may not open the event stream")
        }
        let pushRoute = path.hasPrefix(Self.pushRoutePrefix)
        let keys = [accessKey, pushRoute ? pushToken : nil].compactMap { $0 }
        let probe = Self.probeRoutes.contains(path) && [.get, .head].contains(method)
        if accessKey != nil, path != Self.tokenRoute, !Self.isSMSDoor(path), !probe,
            !keys.contains(where: { presentsKey($0, headers: headers, query: query) }),
            !(pushRoute && Self.bearerToken(in: headers[.authorization]).map(isIssuedAccessToken) == true)
        {
            return Refusal(
                status: .unauthorized, code: "ACCESS_KEY_REQUIRED",
                message: "this server needs its access key: open the link it printed at start, or send 'Authorization: Bearer KEY'")
        }
        return nil
    }

    /// The key as a bearer token, the page's cookie, or the link's `?key=`.
    private func presentsKey(_ key: String, headers: HTTPFields, query: String?) -> Bool {
        let offered = [Self.bearerToken(in: headers[.authorization]), Self.cookie(Self.cookieName, in: headers), Self.linkKey(in: query)]
        return offered.contains { $0.map { Self.constantTimeEqual($0, key) } ?? false }
    }

    /// The token of `Authorization: Bearer TOKEN`; the scheme's name in any case and one or more
    /// spaces after it (RFC 7235 §2.1).
    static func bearerToken(in authorization: String?) -> String? {
        guard let authorization, let space = authorization.firstIndex(of: " "),
            authorization[..<space].lowercased() == "bearer"
        else { return nil }
        let token = authorization[space...].drop { $0 == " " }
        return token.isEmpty ? nil : String(token)
    }

    /// Browsers send the page's http(s) origin; `ws://host` is what non-browser WebSocket
    /// clients (swift-websocket's among them) send, and no web page can.
    static func sameOrigin(_ origin: String, authority: String) -> Bool {
        let hostname = hostName(of: authority)
        return ["http://\(authority)", "https://\(authority)", "ws://\(hostname)", "wss://\(hostname)"].contains(origin.lowercased())
    }

    /// `Host: [::1]:8080` → `::1`, `Example.COM:80` → `example.com`.
    static func hostName(of authority: String) -> String {
        let lower = authority.lowercased()
        if lower.hasPrefix("["), let end = lower.firstIndex(of: "]") { return String(lower[lower.index(after: lower.startIndex)..<end]) }
        return String(lower.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// `[::1]` → `::1`: an IPv6 address as a URL writes it, and as a socket takes it.
    static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    static func cookie(_ name: String, in headers: HTTPFields) -> String? {
        for line in headers[values: .cookie] {
            for pair in line.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    static func linkKey(in query: String?) -> String? {
        guard let query else { return nil }
        return URLComponents(string: "?" + query)?.queryItems?.first { $0.name == keyParameter }?.value
    }

    /// Comparing keys byte by byte in a time that does not depend on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension HTTPField.Name {
    /// Only a second `Host` header: the first is the request's authority, not a field.
    static let host = Self("Host")!
    static let secFetchSite = Self("Sec-Fetch-Site")!
}
