import Foundation
import GRDB
import Storage

/// The texts the phones' Messages app keeps, read and written here only.
extension PhoneStore {
    /// Keeps a text on the phone that has `number`, and lets only the newest `keeping` stay;
    /// nil when no phone has the number. One transaction: the lookup and the row.
    func keepText(_ message: TextMessage, number: String, keeping: Int) async throws(PhoneError) -> String? {
        try await write { sql in
            guard let phoneId = try sql.fetchOne(String.self, "SELECT id FROM phone WHERE number = ?", [number]) else { return nil }
            try TextMessageRecord.insertion.run(TextMessageRecord(message, phoneId: phoneId), sql)
            try sql.execute(
                """
                DELETE FROM textMessage WHERE phoneId = ? AND id NOT IN
                    (SELECT id FROM textMessage WHERE phoneId = ? ORDER BY receivedAt DESC, id DESC LIMIT ?)
                """, [phoneId, phoneId, keeping])
            try sql.announce(StoreNotice(Self.textTopic, message.id))
            return phoneId
        }
    }

    /// What `keepText` announces: a text arrived for a phone.
    static let textTopic = "text"

    /// A text and its phone, by the text's id; nil once it is gone.
    func text(id: String) async throws(PhoneError) -> (phoneId: String, message: TextMessage)? {
        try await read { sql in
            try sql.fetchOne(TextMessageRecord.self, "SELECT * FROM textMessage WHERE id = ?", [id]).map { ($0.phoneId, $0.message) }
        }
    }

    /// A phone's texts, newest first.
    func texts(phoneId: String) async throws(PhoneError) -> [TextMessage] {
        try await read { sql in
            try sql.fetchAll(TextMessageRecord.self, "SELECT * FROM textMessage WHERE phoneId = ? ORDER BY receivedAt DESC, id DESC", [phoneId])
                .map(\.message)
        }
    }

    func clearTexts(phoneId: String) async throws(PhoneError) {
        try await write { sql in try sql.execute("DELETE FROM textMessage WHERE phoneId = ?", [phoneId]) }
    }

    func phoneId(number: String) async throws(PhoneError) -> String? {
        try await read { sql in try sql.fetchOne(String.self, "SELECT id FROM phone WHERE number = ?", [number]) }
    }

    func phoneCount() async throws(PhoneError) -> Int {
        try await read { sql in try sql.fetchOne(Int.self, "SELECT count(*) FROM phone", []) ?? 0 }
    }

    /// Which of these numbers phones have already.
    func takenNumbers(_ numbers: [String]) async throws(PhoneError) -> Set<String> {
        try await read { sql in
            let marks = Array(repeating: "?", count: numbers.count).joined(separator: ", ")
            return Set(try sql.fetchAll(String.self, "SELECT number FROM phone WHERE number IN (\(marks))", numbers.map { $0 }))
        }
    }
}

struct TextMessageRecord: Codable, FetchableRecord {
    static let databaseTableName = "textMessage"
    var id: String
    var phoneId: String
    var sender: String
    var body: String
    var receivedAt: Date

    init(_ message: TextMessage, phoneId: String) {
        id = message.id
        self.phoneId = phoneId
        sender = message.from
        body = message.text
        receivedAt = message.receivedAt
    }

    var message: TextMessage { TextMessage(id: id, from: sender, text: body, receivedAt: receivedAt) }

    static let insertion = NamedInsert<TextMessageRecord>(
        into: databaseTableName,
        [
            "id": { $0.id }, "phoneId": { $0.phoneId }, "sender": { $0.sender }, "body": { $0.body },
            "receivedAt": { StoredDate($0.receivedAt) },
        ])
}
