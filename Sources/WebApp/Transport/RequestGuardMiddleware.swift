import Hummingbird

/// Cross-site request forgery guard for every state-changing request: a browser on another
/// site cannot send a JSON body without a preflight (OWASP ASVS V3.5); `Doors` has already
/// refused a foreign Origin.
struct RequestGuardMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// The one route that takes a picture instead of JSON.
    static let imageRouteSuffix = "/oob/image"
    static let formType = "application/x-www-form-urlencoded"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .get, request.method != .head, request.method != .options else {
            return try await next(request, context)
        }
        // DELETE acts on its path alone (a browser preflights it cross-site anyway).
        guard request.method != .delete else {
            try await request.expectNoBody(context: context)
            return try await next(request, context)
        }
        // Neither type is one a cross-site form can send without a preflight; the token endpoint
        // takes a form, as OAuth's clients send it, and acts on the signed assertion in it alone.
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if request.uri.path == Doors.tokenRoute {
            guard contentType.hasPrefix(Self.formType) else {
                throw APIError(.unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "the token endpoint takes a form (Content-Type: \(Self.formType))")
            }
        } else if Doors.isSMSDoor(request.uri.path) {
            // SMS senders post forms (Twilio's libraries, most gateways' clients) or JSON, with
            // the gateway's credentials, which a cross-site form cannot add
            guard contentType.hasPrefix(Self.formType) || contentType.hasPrefix("application/json") else {
                throw APIError(
                    .unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE",
                    "the SMS gateway takes a form (Content-Type: \(Self.formType)) or JSON (application/json)")
            }
        } else if request.uri.path.hasSuffix(Self.imageRouteSuffix) {
            guard contentType.hasPrefix("image/") else {
                throw APIError(.unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "this route takes a picture (Content-Type: image/png, image/jpeg…)")
            }
        } else if !contentType.hasPrefix("application/json") {
            throw APIError(
                .unsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "state-changing requests take a JSON body (Content-Type: application/json)")
        }
        return try await next(request, context)
    }
}
