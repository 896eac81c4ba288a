import Hummingbird

/// Cross-site request forgery guard for every state-changing request: a browser on another
/// site can send neither a foreign-Origin request past this nor a JSON body without a
/// preflight (OWASP ASVS V3.5). Scripts send no Origin and pass.
struct RequestGuardMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// The one route that takes a picture instead of JSON.
    static let imageRouteSuffix = "/oob/image"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .get, request.method != .head, request.method != .options else {
            return try await next(request, context)
        }
        try Self.checkOrigin(request)
        // DELETE carries no body, and a browser preflights it cross-site anyway.
        guard request.method != .delete else { return try await next(request, context) }
        // Neither type is one a cross-site form can send without a preflight.
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if request.uri.path.hasSuffix(Self.imageRouteSuffix) {
            guard contentType.hasPrefix("image/") else {
                throw APIError(.unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "this route takes a picture (Content-Type: image/png, image/jpeg…)")
            }
        } else if !contentType.hasPrefix("application/json") {
            throw APIError(.unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "state-changing requests take a JSON body (Content-Type: application/json)")
        }
        return try await next(request, context)
    }

    /// A request with an `Origin` must come from this very host (WebSocket upgrades too).
    /// Browsers always send the page's http(s) origin; `ws://host` is what non-browser
    /// WebSocket clients (swift-websocket's among them) send, and no web page can.
    static func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin] else { return }
        let authority = request.head.authority ?? ""
        let hostname = authority.split(separator: ":").first.map(String.init) ?? authority
        let allowed = ["http://\(authority)", "https://\(authority)", "ws://\(hostname)", "wss://\(hostname)"]
        guard allowed.contains(origin) else {
            throw APIError(.forbidden, "FORBIDDEN_ORIGIN", "requests from \(origin) are not allowed")
        }
    }
}
