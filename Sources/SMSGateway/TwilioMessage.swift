import Foundation

/// A text as Twilio's Messages API answers it (its Message resource, 2010-04-01), so Twilio's
/// libraries read AuthPhone's answers as they read Twilio's.
public struct TwilioMessage: Encodable, Sendable, Equatable {
    public var sid: String
    public var accountSid: String
    public var apiVersion = "2010-04-01"
    public var body: String
    public var dateCreated: String
    public var dateSent: String?
    public var dateUpdated: String
    public var direction = "outbound-api"
    public var errorCode: Int?
    public var errorMessage: String?
    public var from: String
    public var messagingServiceSid: String?
    public var numMedia = "0"
    public var numSegments: String
    public var price: String?
    public var priceUnit = "USD"
    public var status: String
    public var subresourceUris: [String: String]
    public var to: String
    public var uri: String

    /// Twilio's names, snake_case.
    enum CodingKeys: String, CodingKey {
        case sid
        case accountSid = "account_sid"
        case apiVersion = "api_version"
        case body
        case dateCreated = "date_created"
        case dateSent = "date_sent"
        case dateUpdated = "date_updated"
        case direction
        case errorCode = "error_code"
        case errorMessage = "error_message"
        case from
        case messagingServiceSid = "messaging_service_sid"
        case numMedia = "num_media"
        case numSegments = "num_segments"
        case price
        case priceUnit = "price_unit"
        case status
        case subresourceUris = "subresource_uris"
        case to
        case uri
    }

    /// The resource of a logged text. Just created, it is `queued`, as Twilio answers a create;
    /// fetched later, it says what became of it.
    public init(_ entry: SMSLogEntry, account: String, justCreated: Bool) {
        sid = entry.id
        accountSid = account
        body = entry.text ?? ""
        let date = Self.date(entry.receivedAt)
        dateCreated = date
        dateUpdated = date
        from = entry.from ?? ""
        to = entry.to ?? ""
        numSegments = String(Self.segments(body))
        let path = "/2010-04-01/Accounts/\(account)/Messages/\(entry.id)"
        uri = path + ".json"
        subresourceUris = ["media": path + "/Media.json", "feedback": path + "/Feedback.json"]
        switch (justCreated, entry.outcome) {
        case (true, _): status = "queued"
        case (false, .delivered):
            status = "delivered"
            dateSent = date
        case (false, .dropped), (false, .delayed):
            status = "sent"
            dateSent = date
        case (false, .undelivered), (false, .refused):
            status = "undelivered"
            errorCode = 30003
            errorMessage = "Unreachable destination handset"
        }
    }

    /// RFC 2822, as Twilio writes its dates.
    static func date(_ date: Date) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) +0000",
                locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }

    /// GSM's segments: 160 characters in one, 153 each when split; 70 and 67 for a text beyond GSM-7's letters.
    public static func segments(_ body: String) -> Int {
        let gsm = body.unicodeScalars.allSatisfy { $0.isASCII }
        let (single, part) = gsm ? (160, 153) : (70, 67)
        let count = gsm ? body.unicodeScalars.count : body.utf16.count
        return count <= single ? 1 : (count + part - 1) / part
    }
}
