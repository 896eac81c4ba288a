import AuthFlow
import Backend
import BackendAPI
import Foundation
import Hummingbird
import OutOfBand
import Phone

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
        let data = try WireJSON.encoder().encode(body)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    init(_ error: BackendError) {
        let status: HTTPResponse.Status = switch error.kind {
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
        let status: HTTPResponse.Status = switch error.kind {
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

    /// A payload that does not decode is nextAuth's "QR parsing error" (32).
    init(_ error: OutOfBandError) {
        self.init(.badRequest, error.code, error.message, sdkCode: 32)
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
        APIError(.badRequest, "MALFORMED_JSON", "\(what) is not what this route takes: \(describe(error))")
    }

    /// A Swift type as JSON calls it.
    static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is [String: Any].Type: "an object"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "a value of another kind"
        }
    }

    /// Names the field and the problem instead of dumping the decoder's internals.
    static func describe(_ error: Error) -> String {
        func path(_ codingPath: [CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "the field '\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)' is missing"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return "\(field.isEmpty ? "the body" : "the field '\(field)'") must be \(jsonKind(of: type))"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not valid JSON" : "the field '\(path(context.codingPath))' is invalid"
        default:
            return "it could not be read"
        }
    }
}
