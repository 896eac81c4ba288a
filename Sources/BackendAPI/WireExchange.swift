import Foundation
import NIOCore

/// One exchange between the parts as the wire saw it, handed to whoever keeps the timeline:
/// the raw bytes and timings only. Redacting and storing happen later, off the request's way.
public struct WireExchange: Sendable {
    /// The parts AuthPhone plays, and the privacyIDEA servers its phones talk to.
    public enum Part: String, Sendable, Codable {
        /// `privacyIDEA`: a privacyIDEA server the phone's privacyIDEA app talks to, in the
        /// backend's place.
        case phone, backend, push, privacyIDEA
    }

    /// What the caller knows of the exchange that the bytes do not say.
    public struct Label: Sendable {
        public var from: Part
        public var to: Part
        public var sessionId: String?
        public var phoneId: String?
        /// The registration token a push went to (a delivery's phone is known by it).
        public var pushToken: String?
        /// The push service's id of the message delivered.
        public var messageId: String?
        /// 1 for the first try, 2 for the first retry…
        public var attempt: Int
        /// A fault set on purpose that struck this exchange, in words.
        public var fault: String?
        /// The auto-answer rule whose answer caused the exchange (`answeringRule` when the label was made).
        public var automaticRule: String?

        public init(
            from: Part, to: Part, sessionId: String? = nil, phoneId: String? = nil, pushToken: String? = nil,
            messageId: String? = nil, attempt: Int = 1, fault: String? = nil
        ) {
            self.from = from
            self.to = to
            self.sessionId = sessionId
            self.phoneId = phoneId
            self.pushToken = pushToken
            self.messageId = messageId
            self.attempt = attempt
            self.fault = fault
            automaticRule = WireExchange.answeringRule
        }
    }

    /// The auto-answer rule answering a phone's request in this task: the exchanges and flow
    /// updates that answer causes are marked with it (docs/scripting.md#auto-answer-rules).
    @TaskLocal public static var answeringRule: String?

    public var label: Label
    public var method: String
    public var url: String
    public var startedAt: Date
    public var duration: Duration
    public var requestBody: Data
    /// nil: no answer came (refused, timed out, or a fault stopped it first).
    public var status: UInt?
    public var responseBody: ByteBuffer?
    /// Why there was no answer.
    public var error: String?

    public init(
        label: Label, method: String, url: String, startedAt: Date, duration: Duration, requestBody: Data,
        status: UInt?, responseBody: ByteBuffer?, error: String?
    ) {
        self.label = label
        self.method = method
        self.url = url
        self.startedAt = startedAt
        self.duration = duration
        self.requestBody = requestBody
        self.status = status
        self.responseBody = responseBody
        self.error = error
    }

    /// Hears each exchange once, as it ends; it must return at once (the timeline only queues it).
    public typealias Observer = @Sendable (WireExchange) -> Void
}
