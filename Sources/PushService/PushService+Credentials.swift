import Foundation

/// What a real sender needs besides the send URL: a service account's key file per project, and
/// the OAuth 2.0 token endpoint (RFC 7523's JWT-bearer grant) that turns an assertion signed with
/// its key into an access token the FCM route takes.
extension PushService {
    /// The project's service account: made on the first ask, the same one on every later ask.
    public func serviceAccount(project: String) async throws -> ServiceAccount {
        precondition(FCMProject.isWellFormed(project), "a project id is checked before it names a service account")
        if let kept = try await store.serviceAccount(project: project) { return kept }
        return try await store.keep(try ServiceAccount.make(project: project, at: now()))
    }

    /// `POST /oauth2/token`: the form's assertion checked against the service account its issuer
    /// names (`tokenEndpoint` is this endpoint's URL as senders reach it), and a token issued for
    /// that account's project.
    public func issueAccessToken(form: [UInt8], tokenEndpoint: String) async throws(OAuthError) -> AccessTokenGrant {
        let assertion = try JWTAssertion(try JWTBearerRequest.assertion(inForm: form))
        let issuer = try assertion.issuer()
        let account: ServiceAccount?
        do {
            if let project = ServiceAccount.project(ofClientEmail: issuer) {
                account = try await store.serviceAccount(project: project)
            } else {
                account = nil
            }
        } catch {
            throw OAuthError(code: .temporarilyUnavailable, description: "the push service's storage failed")
        }
        guard let account else { throw .invalidGrant("no service account of this server has the client_email '\(issuer)'") }
        try assertion.check(against: account, tokenEndpoint: tokenEndpoint, now: now())
        let token = accessTokens.issue(project: account.project, now: now())
        return AccessTokenGrant(accessToken: token, tokenType: "Bearer", expiresIn: Int(AccessTokens.lifetime))
    }

    /// What `token` is to the FCM route now: a live token for a project, an expired one, or none issued here.
    public func standing(ofAccessToken token: String) -> AccessTokens.Standing {
        accessTokens.standing(of: token, now: now())
    }
}
