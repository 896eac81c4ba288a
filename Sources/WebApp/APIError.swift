import AuthFlow
import Backend
import BackendAPI
import Foundation
import Hummingbird
import OutOfBand
import Phone
import WireJSON

/// Every refusal at the HTTP edge: a status, a stable code and a message, answered as
/// `{"error": {"code", "message", "sdkCode"?, "attempts"?}}`.
struct APIError: HTTPResponseError, Equatable {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    var sdkCode: Int?
    /// A retried operation's attempts, so that the caller sees each one and its outcome.
    var attempts: [OperationProgress.Attempt]?

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
    }

    var body: Body { Body(error: .init(code: code, message: message, sdkCode: sdkCode, attempts: attempts)) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try WireResponseEncoder.response(body, status: status)
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
            }
        self.init(status, error.code, error.message)
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
            }
        self.init(status, error.code, error.message, sdkCode: error.sdkCode)
        attempts = error.attempts
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
