import Hummingbird

/// Counts every HTTP request by its route's template and status, times it and logs it at debug,
/// refusals at the doors included: it sits outside every other middleware.
struct ObservingMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let monitor: ServiceMonitor

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            monitor.answered(
                method: request.method, path: request.uri.path, route: context.endpointPath, status: response.status.code, after: .now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            monitor.answered(method: request.method, path: request.uri.path, route: context.endpointPath, status: status.code, after: .now - start)
            throw error
        }
    }
}
