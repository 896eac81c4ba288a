import Foundation
import Hummingbird
import OutOfBand
import PushService

/// `POST /v1/projects/{project}/messages:send`: FCM HTTP v1, answered the way FCM answers, so
/// a Firebase client or `curl` written for FCM works unchanged against this base URL.
struct PushController {
    let push: PushService
    /// When set, the bearer token every send must carry unless it carries an issued access token.
    let token: String?
    let monitor: ServiceMonitor
    let recordings: Recordings

    struct Sent: ResponseEncodable {
        let name: String
    }

    struct FCMErrorResponse: HTTPResponseError {
        let error: FCMError
        var status: HTTPResponse.Status { .init(code: error.code) }

        func response(from request: Request, context: some RequestContext) throws -> Response {
            let data = try JSONEncoder().encode(error.body)
            var headers: HTTPFields = [.contentType: "application/json; charset=UTF-8"]
            if let retryAfter = error.retryAfter { headers[.retryAfter] = "\(retryAfter)" }
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    /// The send's bearer token, refused or let through: an access token the token endpoint issued
    /// counts for its own project only, and not once it expired; any other token must be the
    /// push token when there is one, and is not looked at when there is none.
    private func refusal(of authorization: String?, project: String) -> FCMError? {
        let offered = Doors.bearerToken(in: authorization)
        switch offered.map(push.standing(ofAccessToken:)) {
        case .live(let granted)?: return granted == project ? nil : .permissionDenied(project)
        case .expired?: return .expiredAccessToken
        case .notIssued?, nil:
            guard let token else { return nil }
            return offered.map { Doors.constantTimeEqual($0, token) } == true ? nil : .unauthenticated
        }
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        // The path segment is `messages:send`, literal colon included.
        router.post("/v1/projects/{project}/{method}") { request, context -> Sent in
            guard context.parameters.get("method") == "messages:send" else {
                throw FCMErrorResponse(error: .invalidArgument("Unknown method: only messages:send is served"))
            }
            let project = try context.parameters.require("project")
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: context.maxUploadSize) } catch {
                throw FCMErrorResponse(error: .invalidArgument("Request payload size exceeds the limit: \(context.maxUploadSize) bytes."))
            }
            let sender = context.remoteAddress?.ipAddress ?? "unknown"
            if let refusal = refusal(of: request.headers[.authorization], project: project) {
                await push.refused(refusal, body: Array(buffer: body), sender: sender)
                monitor.pushed(.failure(refusal))
                throw FCMErrorResponse(error: refusal)
            }
            let result: Result<PushService.Accepted, FCMError>
            do throws(FCMError) {
                result = .success(try await push.send(project: project, body: Array(buffer: body), sender: sender))
            } catch {
                result = .failure(error)
            }
            monitor.pushed(result)
            // a page's send (the console's composer) is a walk's step; the demo backend's own
            // sends are its sessions' and a script's are the script's
            if recordings.isOn, request.headers[.origin] != nil {
                let refusal: String? =
                    switch result {
                    case .success: nil
                    case .failure(let error): error.errorCode
                    }
                await recordings.note(pushOf: Array(buffer: body), refusal: refusal)
            }
            return try Sent(name: result.mapError { FCMErrorResponse(error: $0) }.get().name)
        }
    }
}
