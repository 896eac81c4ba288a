import Foundation
import GRDB

/// What became of a text the gateway was handed.
public enum SMSOutcome: String, Codable, Sendable, CaseIterable {
    /// On the phone that has the number.
    case delivered
    /// Valid, but no phone has the number.
    case undelivered
    /// Refused at the door: bad credentials or input, the rate limit, a gateway fault.
    case refused
    /// Accepted and lost, or held back, by a fault set on purpose.
    case dropped, delayed
}

/// One text as the SMS log keeps it: what the sender sent, through which door, and what became of
/// it, with why when it did not reach a phone.
public struct SMSLogEntry: Codable, Sendable, Equatable, FetchableRecord {
    public enum Door: String, Codable, Sendable {
        case gateway, twilio
    }
    public struct Refusal: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
    }

    /// Twilio's message SID (`SM…`), which either door answers.
    public var id: String
    public var receivedAt: Date
    public var door: Door
    /// The sender's address.
    public var sender: String
    /// As the sender gave them: a refused text's may be anything (or missing).
    public var to: String?
    public var from: String?
    public var text: String?
    public var outcome: SMSOutcome
    /// The phone it reached.
    public var phoneId: String?
    public var error: Refusal?

    /// What the log keeps of a refused text's parts: enough to see what was sent.
    static let keptLength = 2000

    init(
        id: String, receivedAt: Date, door: Door, sender: String, to: String?, from: String?, text: String?, outcome: SMSOutcome,
        phoneId: String? = nil, error: SMSError? = nil
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.door = door
        self.sender = sender
        self.to = to.map { String($0.prefix(Self.keptLength)) }
        self.from = from.map { String($0.prefix(Self.keptLength)) }
        self.text = text.map { String($0.prefix(Self.keptLength)) }
        self.outcome = outcome
        self.phoneId = phoneId
        self.error = error.map { Refusal(code: $0.code, message: $0.message) }
    }

    public init(row: Row) throws {
        id = row["id"]
        receivedAt = row["receivedAt"]
        door = Door(rawValue: row["door"]) ?? .gateway
        sender = row["sender"]
        to = row["recipient"]
        from = row["originator"]
        text = row["body"]
        outcome = SMSOutcome(rawValue: row["outcome"]) ?? .refused
        phoneId = row["phoneId"]
        let code: String? = row["errorCode"]
        let message: String? = row["errorMessage"]
        error = code.map { Refusal(code: $0, message: message ?? "") }
    }
}
