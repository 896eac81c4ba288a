import Hummingbird

/// Lets the domain modules throw their own typed errors and answers each as an APIError. A
/// refusal of the server's own (5xx) is logged with what failed underneath it, which the
/// answer does not say: a 503 under load is otherwise a code with no cause.
struct ErrorMappingMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch {
            let mapped = APIError.from(error)
            if let refusal = mapped as? APIError, refusal.status.code >= 500 {
                context.logger.warning(
                    "request refused by the server's own failure",
                    metadata: [
                        "code": "\(refusal.code)", "route": "\(context.endpointPath ?? "unrouted")",
                        "cause": "\(refusal.cause ?? refusal.message)",
                    ])
            }
            throw mapped
        }
    }
}
