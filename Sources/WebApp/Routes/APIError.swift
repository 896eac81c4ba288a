import AuthFlow
import Backend
import BackendAPI
import Foundation
import GRDB
import Hummingbird
import OutOfBand
import Phone
import Storage
import WireJSON

/// Every refusal at the HTTP edge: a status, a stable code and a message, answered as
/// `{"error": {"code", "message", "sdkCode"?, "attempts"?}, "sessionId"?}`.
struct APIError: HTTPResponseError, Equatable {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    var sdkCode: Int?
    /// What failed underneath a 5xx, for the log (`ErrorMappingMiddleware`), never the answer.
    var cause: String?
    /// A retried operation's attempts, so that the caller sees each one and its outcome.
    var attempts: [OperationProgress.Attempt]?
    /// When to send the request again (a busy server's 503): the `Retry-After` header.
    var retryAfter: Duration?
    /// The session a refused redeem's token belongs to: beside the error, where the timeline
    /// reads a redeem answer's session.
    var sessionId: String?

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String, sdkCode: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.sdkCode = sdkCode
    }

    struct Body: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
            let sdkCode: Int?
            let attempts: [OperationProgress.Attempt]?
        }
        let error: Detail
        let sessionId: String?
    }

    var body: Body { Body(error: .init(code: code, message: message, sdkCode: sdkCode, attempts: attempts), sessionId: sessionId) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try WireResponseEncoder.response(body, status: status)
        if let retryAfter {
            response.headers[.retryAfter] = String(max(1, retryAfter.components.seconds + (retryAfter.components.attoseconds > 0 ? 1 : 0)))
        }
        return response
    }

    init(_ error: BackendError) {
        let status: HTTPResponse.Status =
            switch error.kind {
            case .badRequest: .badRequest
            case .forbidden: .forbidden
            case .notFound: .notFound
            case .conflict: .conflict
            case .gone: .gone
            case .tooManyRequests: .tooManyRequests
            case .unavailable: .serviceUnavailable
            case .insufficientStorage: .insufficientStorage
            }
        self.init(status, error.code, error.message)
        sessionId = error.sessionId
        cause = error.cause
    }

    init(_ error: PhoneError) {
        let status: HTTPResponse.Status =
            switch error.kind {
            case .badRequest: .badRequest
            case .forbidden: .forbidden
            case .notFound: .notFound
            case .conflict: .conflict
            case .gone: .gone
            case .badGateway: .badGateway
            case .unavailable: .serviceUnavailable
            case .insufficientStorage: .insufficientStorage
            }
        self.init(status, error.code, error.message, sdkCode: error.sdkCode)
        attempts = error.attempts
        // only the phone's own refusals: a backend's Retry-After was said to the phone, not to its caller
        if status == .serviceUnavailable, error.httpStatus == nil { retryAfter = error.retryAfter }
    }

    /// A payload that does not decode: nextAuth's "QR parsing error" (32) or "QR unknown type" (33).
    init(_ error: OutOfBandError) {
        self.init(.badRequest, error.code, error.message, sdkCode: error.sdkCode)
    }

    /// The HTTP answer for any error a route lets through; unknown errors stay opaque.
    static func from(_ error: Error) -> Error {
        switch error {
        case let error as BackendError: APIError(error)
        case let error as PhoneError: APIError(error)
        case let error as OutOfBandError: APIError(error)
        // a store's own failure that no part put in its words (the push service's, the timeline's)
        case let error where isStorageFull(error):
            APIError(.insufficientStorage, "STORAGE_FULL", "the disk holding AuthPhone's data is full: nothing was changed")
        case let error where isStoreError(error): APIError(.serviceUnavailable, "STORAGE_ERROR", "AuthPhone's storage failed")
        case let error as HTTPError where error.status == .notFound:
            APIError(.notFound, "NOT_FOUND", "no such route or resource")
        case let error as HTTPError where error.status == .methodNotAllowed:
            APIError(.methodNotAllowed, "METHOD_NOT_ALLOWED", "this route does not take that method")
        default: error
        }
    }

    static func malformedJSON(_ error: Error, what: String = "the request body") -> APIError {
        APIError(.badRequest, "MALFORMED_JSON", "\(what) is not what this route takes: \(WireJSON.describe(error))")
    }

}

extension HTTPResponse.Status {
    /// RFC 4918's 507: the server cannot store what the request needs (a full disk).
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}
