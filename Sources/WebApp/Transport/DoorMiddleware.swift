import Hummingbird

/// Applies `Doors` to every request on both routers (pages, API and WebSocket upgrades); a
/// page opened by its key link keeps the key in a cookie and loses it from the address bar. A
/// WebSocket opened with `?key=` is let in as it is: a handshake cannot follow a redirect.
struct DoorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let doors: Doors

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = doors.admit(
            method: request.method, path: request.uri.path, authority: request.head.authority, headers: request.headers,
            query: request.uri.query)
        {
            throw refusal.apiError
        }
        if let key = doors.accessKey, request.method == .get, request.headers[.upgrade] == nil, Doors.linkKey(in: request.uri.query) != nil {
            return Response(
                status: .seeOther,
                headers: [
                    .location: request.uri.path,
                    .setCookie: "\(Doors.cookieName)=\(key); Path=/; HttpOnly; SameSite=Strict",
                ])
        }
        return try await next(request, context)
    }
}
