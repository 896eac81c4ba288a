import Foundation
import Hummingbird
import PushService

/// What a real FCM sender (privacyIDEA's Firebase provider, any Google client) needs besides the
/// send URL: `GET /api/push/projects/{project}/service-account`, a service account's key file to
/// download, and `POST /oauth2/token`, the OAuth 2.0 token endpoint the file's `token_uri` names,
/// where the sender trades an assertion signed with the file's key for an access token the FCM
/// route takes.
struct SenderCredentialsController {
    let push: PushService
    /// This server's base URL as senders reach it.
    let baseURL: @Sendable () -> String

    private var tokenEndpoint: String { baseURL() + Doors.tokenRoute }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/push/projects/{project}/service-account") { _, context -> Response in
            let project = try context.parameters.require("project")
            guard FCMProject.isWellFormed(project) else {
                throw APIError(
                    .badRequest, "INVALID_PROJECT",
                    "a Firebase project id is 6 to 30 lower-case letters, digits and hyphens, starting with a letter and not ending with a hyphen")
            }
            let file = try await push.serviceAccount(project: project).keyFile(tokenEndpoint: tokenEndpoint)
            var response = try WireResponseEncoder.response(file)
            response.headers[.contentDisposition] = "attachment; filename=\"authphone-\(project)-service-account.json\""
            response.headers[.cacheControl] = "no-store"
            return response
        }
        router.post("/oauth2/token") { request, context -> Response in
            let answer: Result<AccessTokenGrant, OAuthError>
            if let form = try? await request.body.collect(upTo: context.maxUploadSize) {
                do throws(OAuthError) {
                    answer = .success(try await push.issueAccessToken(form: Array(buffer: form), tokenEndpoint: tokenEndpoint))
                } catch {
                    answer = .failure(error)
                }
            } else {
                answer = .failure(.invalidRequest("the body is larger than \(context.maxUploadSize) bytes"))
            }
            // RFC 6749 §5.1: a token, or a refusal of one, is never cached (its Pragma RFC 9111 retired)
            var response =
                switch answer {
                case .success(let grant): try WireResponseEncoder.response(grant)
                case .failure(let refusal): try WireResponseEncoder.response(refusal.body, status: .init(code: refusal.status))
                }
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }
}
