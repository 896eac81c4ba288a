import Foundation

/// A timeline as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/), so
/// browser devtools and HTTP tools open it: one entry per exchange, oldest first, with the
/// redacted bodies. What HAR has no field for (which parts, the attempt, the fault, the auto-answer
/// rule that caused it) is in the
/// entry's `comment` and in custom `_authphone` fields, as the format allows.
public struct HAR: Encodable, Sendable {
    struct NameValue: Encodable, Sendable {
        let name: String
        let value: String
    }
    struct PostData: Encodable, Sendable {
        let mimeType: String
        let text: String
    }
    struct Request: Encodable, Sendable {
        let method: String
        let url: String
        let httpVersion = "HTTP/1.1"
        let cookies: [NameValue] = []
        let headers: [NameValue]
        let queryString: [NameValue] = []
        let postData: PostData?
        let headersSize = -1
        let bodySize: Int
    }
    struct Content: Encodable, Sendable {
        let size: Int
        let mimeType: String
        let text: String?
    }
    struct Response: Encodable, Sendable {
        /// 0: no answer came, as browsers write it.
        let status: Int
        let statusText: String
        let httpVersion = "HTTP/1.1"
        let cookies: [NameValue] = []
        let headers: [NameValue]
        let content: Content
        let redirectURL = ""
        let headersSize = -1
        let bodySize: Int
    }
    struct Timings: Encodable, Sendable {
        let send: Double = 0
        let wait: Double
        let receive: Double = 0
    }
    struct Parts: Encodable, Sendable {
        let from: String
        let to: String
        let attempt: Int
        let fault: String?
        let error: String?
        let sessionId: String?
        let phoneId: String?
        let automaticRule: String?
    }
    struct Entry: Encodable, Sendable {
        let startedDateTime: String
        let time: Double
        let request: Request
        let response: Response
        let cache: [String: String] = [:]
        let timings: Timings
        let comment: String
        let authphone: Parts

        enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings, comment
            /// HAR's custom fields begin with an underscore.
            case authphone = "_authphone"
        }
    }
    struct Creator: Encodable, Sendable {
        let name = "AuthPhone"
        let version = "1"
    }
    struct Log: Encodable, Sendable {
        let version = "1.2"
        let creator = Creator()
        let entries: [Entry]
        let comment: String
    }

    let log: Log

    public init(_ hops: [Hop], title: String) {
        let json = "application/json"
        let dateFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        log = Log(
            entries: hops.map { hop in
                let request = hop.request ?? ""
                let response = hop.response ?? ""
                let fault = hop.fault.map { ", fault: \($0)" } ?? ""
                let automatic = hop.automaticRule.map { ", automatic (rule \($0))" } ?? ""
                return Entry(
                    startedDateTime: hop.at.formatted(dateFormat), time: hop.durationMs,
                    request: Request(
                        method: hop.method, url: hop.url, headers: [NameValue(name: "Content-Type", value: json)],
                        postData: hop.request.map { PostData(mimeType: json, text: $0) }, bodySize: request.utf8.count),
                    response: Response(
                        status: hop.status ?? 0, statusText: hop.status == nil ? (hop.error ?? "no answer") : "",
                        headers: hop.response == nil ? [] : [NameValue(name: "Content-Type", value: json)],
                        content: Content(size: response.utf8.count, mimeType: hop.response == nil ? "" : json, text: hop.response),
                        bodySize: hop.status == nil ? -1 : response.utf8.count),
                    timings: Timings(wait: hop.durationMs),
                    comment: "\(hop.from) → \(hop.to), attempt \(hop.attempt)\(fault)\(automatic)",
                    authphone: Parts(
                        from: hop.from, to: hop.to, attempt: hop.attempt, fault: hop.fault, error: hop.error, sessionId: hop.sessionId,
                        phoneId: hop.phoneId, automaticRule: hop.automaticRule))
            }, comment: title)
    }
}
