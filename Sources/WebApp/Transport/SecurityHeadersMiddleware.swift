import HTTPTypes
import Hummingbird

/// What every answer tells the browser: run only this server's own scripts and styles, never
/// inside another site's frame (the stage frames this server's own phone pages), guess no
/// content types, and send no referrer. Errors get the
/// same headers, so it wraps them into their answers here.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    static let headers: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-src 'self'; frame-ancestors 'self'",
        .xContentTypeOptions: "nosniff",
        .xFrameOptions: "SAMEORIGIN",
        .referrerPolicy: "no-referrer",
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do { response = try await next(request, context) } catch let error as HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        for field in Self.headers { response.headers[field.name] = field.value }
        return response
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
