import Foundation

/// A refused text, as each door says it: the generic gateway with a stable code and message in
/// JSON, Twilio's door with Twilio's own error body (`code`, `message`, `more_info`, `status`), so
/// each sender's library reads it as it reads its real gateway's. A refused text changed nothing.
public struct SMSError: Error, Equatable, Sendable, CustomStringConvertible {
    public let status: Int
    /// AuthPhone's stable code (`NUMBER_UNKNOWN`).
    public let code: String
    /// Twilio's numeric code for the same refusal.
    public let twilioCode: Int
    public let message: String
    public var retryAfter: Int?

    public var description: String { "\(code): \(message)" }

    init(_ status: Int, _ code: String, twilio: Int, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        twilioCode = twilio
        self.message = message
        self.retryAfter = retryAfter
    }

    public static let unauthenticated = SMSError(
        401, "SMS_CREDENTIALS_REQUIRED", twilio: 20003,
        "Authenticate: send the account SID and auth token AuthPhone issued (GET /api/sms/account) as HTTP basic auth")
    public static func otherAccount(_ sid: String) -> SMSError {
        SMSError(403, "SMS_ACCOUNT_MISMATCH", twilio: 20003, "the credentials are not those of account \(sid)")
    }
    public static let recipientMissing = SMSError(400, "RECIPIENT_MISSING", twilio: 21604, "A 'To' phone number is required.")
    public static func recipientInvalid(_ why: String) -> SMSError {
        SMSError(400, "INVALID_NUMBER", twilio: 21211, "Invalid 'To' Phone Number: \(why)")
    }
    public static func recipientUnknown(_ number: String) -> SMSError {
        SMSError(400, "NUMBER_UNKNOWN", twilio: 21211, "Invalid 'To' Phone Number: no phone on this server has the number \(number)")
    }
    public static let senderMissing = SMSError(400, "SENDER_MISSING", twilio: 21603, "A 'From' phone number is required.")
    public static func senderInvalid(_ why: String) -> SMSError { SMSError(400, "INVALID_SENDER", twilio: 21212, "Invalid From Number: \(why)") }
    public static let bodyMissing = SMSError(400, "TEXT_MISSING", twilio: 21602, "Message body is required.")
    public static func bodyTooLong(_ length: Int) -> SMSError {
        SMSError(
            400, "TEXT_TOO_LONG", twilio: 21617,
            "The concatenated message body exceeds the \(OutgoingText.maximumLength) character limit (it has \(length)).")
    }
    public static func bodyUnreadable(_ why: String) -> SMSError { SMSError(400, "TEXT_UNREADABLE", twilio: 70002, "Bad request: \(why)") }
    public static func request(_ why: String) -> SMSError { SMSError(400, "INVALID_REQUEST", twilio: 70002, "Bad request: \(why)") }
    public static func tooMany(limit: Int, window: TimeInterval, retryAfter: Int) -> SMSError {
        SMSError(
            429, "TOO_MANY_TEXTS", twilio: 20429,
            "Too Many Requests: at most \(limit) texts to one number in \(Int(window)) s (the gateway's rate limit)", retryAfter: retryAfter)
    }
    public static func notFound(_ path: String) -> SMSError {
        SMSError(404, "TEXT_NOT_FOUND", twilio: 20404, "The requested resource \(path) was not found")
    }
    /// A gateway error set on purpose (`POST /api/faults`, target `sms`).
    public static func gatewayFault(status: Int, retryAfter: Int?) -> SMSError {
        SMSError(
            status, "GATEWAY_FAULT", twilio: status == 429 ? 20429 : 20500, "the SMS gateway answers \(status): a fault set on purpose",
            retryAfter: retryAfter)
    }
    public static let storageFailed = SMSError(503, "STORAGE_ERROR", twilio: 20500, "the SMS gateway's storage failed")

    /// Twilio's error body.
    public struct TwilioBody: Codable, Equatable, Sendable {
        public var code: Int
        public var message: String
        public var moreInfo: String
        public var status: Int

        enum CodingKeys: String, CodingKey {
            case code, message, status
            case moreInfo = "more_info"
        }
    }

    public var twilioBody: TwilioBody {
        TwilioBody(code: twilioCode, message: message, moreInfo: "https://www.twilio.com/docs/errors/\(twilioCode)", status: status)
    }
}
