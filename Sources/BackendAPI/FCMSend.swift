import Foundation

/// An FCM HTTP v1 send request, as the backend posts it to the push service.
public struct FCMSend: Codable, Sendable {
    public struct Message: Codable, Sendable {
        public struct Notification: Codable, Sendable {
            public var title: String
            public var body: String
        }
        public var token: String
        public var data: [String: String]
        public var notification: Notification
    }
    public var message: Message

    public init(token: String, data: [String: String], title: String, body: String) {
        message = Message(token: token, data: data, notification: .init(title: title, body: body))
    }

    public static func path(project: String) -> String { "/v1/projects/\(project)/messages:send" }
}
