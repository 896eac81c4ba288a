import Foundation

/// A text as the phone's Messages app keeps it: who sent it (a number or a sender's name), what
/// it says, when it came, and the one-time code in it, which the app offers to copy.
public struct TextMessage: Codable, Sendable, Equatable {
    public var id: String
    public var from: String
    public var text: String
    public var receivedAt: Date
    /// The security code the text carries (`OneTimeCode`), nil when it carries none.
    public var code: String?

    public init(id: String, from: String, text: String, receivedAt: Date) {
        self.id = id
        self.from = from
        self.text = text
        self.receivedAt = receivedAt
        code = OneTimeCode.find(in: text)
    }
}
