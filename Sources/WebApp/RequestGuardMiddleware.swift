import Hummingbird

/// Cross-site request forgery guard for every state-changing request: a browser on another
/// site can send neither a foreign-Origin request past this nor a JSON body without a
/// preflight (OWASP ASVS V3.5). Scripts send no Origin and pass.
struct RequestGuardMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .get, request.method != .head, request.method != .options else {
            return try await next(request, context)
        }
        try Self.checkOrigin(request)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json") else {
            throw APIError(.unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "state-changing requests take a JSON body (Content-Type: application/json)")
        }
        return try await next(request, context)
    }

    /// A request with an `Origin` must come from this very host (WebSocket upgrades too).
    static func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin] else { return }
        let host = request.head.authority ?? ""
        guard origin == "http://\(host)" || origin == "https://\(host)" else {
            throw APIError(.forbidden, "FORBIDDEN_ORIGIN", "requests from \(origin) are not allowed")
        }
    }
}
