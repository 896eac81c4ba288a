import Foundation
import GRDB
import Phone
import Storage
import TestDoubles
import Testing

/// A PIN never leaves the phone and is never stored: the backend gets proofs made with a key
/// derived from it, and the phone keeps only that key's salt.
@Suite struct PinSecrecyTests {
    @Test(arguments: TestEngine.available) func noRequestAndNoStoredValueHoldsThePin(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let (id, enrolment) = try await phone.enrolledPhone()
        try await phone.login(id, enrolment)
        #expect(await phone.flow(id)?.state == .done)
        let pin = Array(PhoneUnderTest.pin.utf8)

        #expect(phone.backend.sent.count == 6)
        for request in phone.backend.sent {
            #expect(!Self.holds(Array(request.body), pin), "the request to \(request.url) holds the PIN")
        }
        let tables =
            engine == .sqlite
            ? "SELECT name FROM sqlite_master WHERE type = 'table'" : "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        let stored = try await phone.store.readAll { sql in
            try sql.fetchAll(String.self, tables, []).flatMap { table in
                try sql.fetchAll(StoredValues.self, "SELECT * FROM \(table)", []).flatMap(\.values)
            }
        }
        #expect(stored.contains { !$0.isEmpty })
        #expect(!stored.contains { Self.holds($0, pin) })
    }

    /// A row's text and blob values as bytes, whatever its table.
    private struct StoredValues: FetchableRecord {
        let values: [[UInt8]]
        init(row: Row) {
            values = row.databaseValues.map { value -> [UInt8] in
                switch value.storage {
                case .string(let text): Array(text.utf8)
                case .blob(let data): Array(data)
                default: []
                }
            }
        }
    }

    private static func holds(_ bytes: [UInt8], _ pin: [UInt8]) -> Bool {
        bytes.count >= pin.count && (0...(bytes.count - pin.count)).contains { bytes[$0..<$0 + pin.count].elementsEqual(pin) }
    }
}
