import Hummingbird

/// Lets the domain modules throw their own typed errors and answers each as an APIError.
struct ErrorMappingMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch { throw APIError.from(error) }
    }
}
