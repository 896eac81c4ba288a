import Crypto
import Foundation
import OutOfBand
import Synchronization

/// The access tokens the token endpoint issued, each good for one project for an hour. Kept in
/// memory, not in the store: a sender's Google client answered 401 asks for a new token at once
/// (google-auth refreshes on 401 and sends again), so a restart that forgets them costs a sender
/// one token request, and a token is never written anywhere it could be read back from.
public final class AccessTokens: Sendable {
    /// What a token request is told (`expires_in`), as Google's.
    public static let lifetime: TimeInterval = 3600

    /// Every issued token starts so: one that is no longer known (expired, or issued before a
    /// restart) is still told apart from a token given some other way (`--push-token`, or any
    /// token when none is set), and refused as expired instead of let through.
    static let prefix = "authphone-oauth."

    private struct Grant {
        let project: String
        let expiresAt: Date
    }

    private let grants = Mutex<[String: Grant]>([:])

    /// What a bearer token is to the FCM route.
    public enum Standing: Equatable, Sendable {
        /// Issued for this project, and not expired.
        case live(project: String)
        /// Of the issued form, but expired or not known here.
        case expired
        /// Not an issued token at all.
        case notIssued

        public var isLive: Bool {
            if case .live = self { true } else { false }
        }
    }

    public init() {}

    /// A new token for `project`, good until `lifetime` after `now`; the expired ones are forgotten.
    func issue(project: String, now: Date) -> String {
        let token = Self.prefix + SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode(Array($0)) }
        grants.withLock { grants in
            grants = grants.filter { $0.value.expiresAt > now }
            grants[token] = Grant(project: project, expiresAt: now.addingTimeInterval(Self.lifetime))
        }
        return token
    }

    public func standing(of token: String, now: Date) -> Standing {
        guard token.hasPrefix(Self.prefix) else { return .notIssued }
        guard let grant = grants.withLock({ $0[token] }), grant.expiresAt > now else { return .expired }
        return .live(project: grant.project)
    }
}
