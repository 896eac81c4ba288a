import Foundation
import GRDB
import Phone
import Testing

/// A PIN never leaves the phone and is never stored: the backend gets proofs made with a key
/// derived from it, and the phone keeps only that key's salt.
@Suite struct PinSecrecyTests {
    @Test func noRequestAndNoStoredValueHoldsThePin() async throws {
        let phone = try PhoneUnderTest()
        let (id, enrolment) = try await phone.enrolledPhone()
        try await phone.login(id, enrolment)
        #expect(await phone.flow(id)?.state == .done)
        let pin = Array(PhoneUnderTest.pin.utf8)

        #expect(phone.backend.sent.count == 6)
        for request in phone.backend.sent {
            #expect(!Self.holds(Array(request.body), pin), "the request to \(request.url) holds the PIN")
        }
        let stored = try await phone.store.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'").flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").flatMap { row in
                    row.databaseValues.map { value -> [UInt8] in
                        switch value.storage {
                        case .string(let text): Array(text.utf8)
                        case .blob(let data): Array(data)
                        default: []
                        }
                    }
                }
            }
        }
        #expect(stored.contains { !$0.isEmpty })
        #expect(!stored.contains { Self.holds($0, pin) })
    }

    private static func holds(_ bytes: [UInt8], _ pin: [UInt8]) -> Bool {
        bytes.count >= pin.count && (0...(bytes.count - pin.count)).contains { bytes[$0..<$0 + pin.count].elementsEqual(pin) }
    }
}
