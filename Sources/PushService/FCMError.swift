/// An error as FCM HTTP v1 answers it, so that clients written for Firebase read it unchanged:
/// `{"error": {"code": 404, "message": "…", "status": "NOT_FOUND", "details": [{"@type": "…FcmError", "errorCode": "UNREGISTERED"}]}}`.
public struct FCMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public let code: Int
    /// Google's canonical status name.
    public let status: String
    /// FCM's own error code, the one clients act on.
    public let errorCode: String
    public let message: String
    /// Whole seconds before a retry may succeed (FCM's `Retry-After` on a 429).
    public var retryAfter: Int?
    /// The rule of FCM's a refused message broke, answered as FCM does (a `google.rpc.BadRequest`
    /// detail), so a sender sees which rule, not only that one was broken.
    public var rule: FCMRule?

    public var description: String { "\(errorCode): \(message)" }

    public static func invalidArgument(_ message: String, rule: FCMRule? = nil) -> FCMError {
        FCMError(code: 400, status: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", message: message, rule: rule)
    }
    public static func unregistered(_ token: String) -> FCMError {
        FCMError(
            code: 404, status: "NOT_FOUND", errorCode: "UNREGISTERED",
            message: "Requested entity was not found: the registration token is not registered (\(token.prefix(12))…)")
    }
    public static func unregisteredInstallation(_ fid: String) -> FCMError {
        FCMError(
            code: 404, status: "NOT_FOUND", errorCode: "UNREGISTERED",
            message: "Requested entity was not found: no app instance is registered with the fid \(fid)")
    }
    public static func senderIdMismatch(_ project: String) -> FCMError {
        FCMError(
            code: 403, status: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH",
            message: "SenderId mismatch: the token belongs to another project than '\(project)'")
    }
    public static func quotaExceeded(_ message: String, retryAfter: Int) -> FCMError {
        FCMError(code: 429, status: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED", message: message, retryAfter: retryAfter)
    }
    /// A send without the bearer token the push service was started with.
    public static let unauthenticated = FCMError(
        code: 401, status: "UNAUTHENTICATED", errorCode: "UNAUTHENTICATED",
        message: "Request is missing required authentication credential: send 'Authorization: Bearer' with the push token.")
    /// A send with an issued access token that expired, or that this server does not know (it
    /// forgets them when it restarts): a Google client fetches a new one and sends again.
    public static let expiredAccessToken = FCMError(
        code: 401, status: "UNAUTHENTICATED", errorCode: "UNAUTHENTICATED",
        message: "Request had invalid authentication credentials: the access token expired or was not issued by this server; fetch a new one.")
    /// A send with an access token issued for another project, worded as Google words it.
    public static func permissionDenied(_ project: String) -> FCMError {
        FCMError(
            code: 403, status: "PERMISSION_DENIED", errorCode: "PERMISSION_DENIED",
            message: "Permission 'cloudmessaging.messages.create' denied on resource 'projects/\(project)': the access token is another project's.")
    }
    public static func internalError(_ message: String) -> FCMError {
        FCMError(code: 500, status: "INTERNAL", errorCode: "INTERNAL", message: message)
    }

    public struct Body: Codable, Equatable, Sendable {
        /// FCM's own code first (what clients read), then the broken rule, if any.
        public struct Detail: Codable, Equatable, Sendable {
            public var type: String
            public var errorCode: String?
            public var fieldViolations: [FieldViolation]?

            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case errorCode
                case fieldViolations
            }
        }
        public struct FieldViolation: Codable, Equatable, Sendable {
            public var field: String
            public var description: String
        }
        public struct Inner: Codable, Equatable, Sendable {
            public var code: Int
            public var message: String
            public var status: String
            public var details: [Detail]
        }
        public var error: Inner
    }

    public var body: Body {
        var details: [Body.Detail] = [.init(type: "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: errorCode)]
        if let rule {
            details.append(
                .init(type: "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [.init(field: rule.field, description: rule.description)]))
        }
        return Body(error: .init(code: code, message: message, status: status, details: details))
    }
}

/// The rules of FCM's a message can break that a sender most often trips over, each named once
/// here: the refusal carries it, and the pages show its text rather than a copy of their own.
public enum FCMRule: String, Codable, Equatable, Sendable, CaseIterable {
    case oneTarget
    case stringValues
    case reservedKeys
    case sizeLimit

    /// The field FCM names in its `fieldViolations`.
    public var field: String {
        self == .stringValues || self == .reservedKeys ? "message.data" : "message"
    }

    public var description: String {
        switch self {
        case .oneTarget: "A message has exactly one target: one of token, topic, condition or fid (a multicast is one send per token)."
        case .stringValues: "Every value in the data map is a string: send numbers and objects as text (JSON inside a string)."
        case .reservedKeys:
            "Data keys may not be \(FCMSendRequest.reservedKeys.sorted().map { "'\($0)'" }.joined(separator: " or ")) nor start with \(FCMSendRequest.reservedPrefixes.map { "'\($0)'" }.joined(separator: " or "))."
        case .sizeLimit: "Data and notification together are at most \(FCMSendRequest.payloadLimit) bytes."
        }
    }
}
