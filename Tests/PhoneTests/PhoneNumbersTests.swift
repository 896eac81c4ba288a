import Foundation
import GRDB
import Identifiers
import Storage
import TestDoubles
import Testing

@testable import Phone

/// Each phone's number: handed out in order from the fictional range, or given and then one
/// phone's only; an existing database's phones get numbers in place; and the Messages app keeps
/// the texts for the phone that has the number, newest first, within its bound.
@Suite struct PhoneNumbersTests {
    @Test(arguments: TestEngine.available) func numbersAreHandedOutInOrderOrGiven(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let first = try await phone.phones.createPhone(name: "first")
        let second = try await phone.phones.createPhone(name: "second")
        #expect([first.number, second.number] == ["+447700900000", "+447700900001"])
        let given = try await phone.phones.createPhone(name: "given", number: try PhoneNumber(reading: "+447700900003"))
        #expect(given.number == "+447700900003")
        // the next free one: the count (3) is taken, so the one after it
        #expect(try await phone.phones.createPhone(name: "fourth").number == "+447700900004")
        await #expect(throws: PhoneError.numberTaken(try PhoneNumber(reading: "+447700900000"))) {
            try await phone.phones.createPhone(name: "taken", number: try PhoneNumber(reading: "+44 7700 900000"))
        }
        #expect(try await phone.phones.phone(id: first.id).number == first.number)
    }

    /// Numbers given by hand can leave a block past the count all taken: the search goes on past
    /// it (it once stopped with NO_FREE_NUMBER, and did whenever a collision with another
    /// instance sent it to a random place among the numbers already given).
    @Test(arguments: TestEngine.available) func aTakenBlockPastTheCountIsSearchedPast(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        var given: Set<String> = []
        for index in 50..<100 {
            given.insert(try await phone.phones.createPhone(name: "given \(index)", number: .fictional(index)).number)
        }
        // 50 phones: the first window, 50 to 81, is all taken
        let next = try await phone.phones.createPhone(name: "next")
        #expect(!given.contains(next.number))
        let index = try #require(Int(next.number.suffix(5)))
        #expect(index >= 100, "\(next.number) is behind the count, where numbers were given")
    }

    @Test(arguments: TestEngine.available) func theMessagesAppKeepsTheNewestTextsOfTheNumbersPhone(on engine: TestEngine) async throws {
        let phone = try await PhoneUnderTest(on: engine)
        let id = try await phone.newPhone()
        let number = try PhoneNumber(reading: try await phone.phones.phone(id: id).number)
        let screen = phone.phones.events.subscribe(id)
        var received: [TextMessage] = []
        for n in 0..<(MessagesApp.kept + 2) {
            phone.clock.advance(1)
            let id = "SM\(n)"
            received.append(try #require(try await phone.phones.messages.receive(id: id, to: number, from: "Bank", text: "Code \(1000 + n)")).message)
            if n == 0 {
                var iterator = screen.makeAsyncIterator()
                #expect(await iterator.next() == .textMessage(received[0]))
                #expect(received[0].id == "SM0")
            }
        }
        let kept = try await phone.phones.messages.texts(phoneId: id)
        #expect(kept.count == MessagesApp.kept)
        #expect(kept.first == received.last && kept.first?.code == "\(1000 + MessagesApp.kept + 1)")
        #expect(kept.last == received[2])
        #expect(try await phone.phones.messages.receive(id: "SMx", to: try PhoneNumber(reading: "+15550100199"), from: "Bank", text: "x") == nil)
        try await phone.phones.messages.clear(phoneId: id)
        #expect(try await phone.phones.messages.texts(phoneId: id).isEmpty)
    }

    @Test func anOldDatabasesPhonesGetNumbersInPlace() async throws {
        let queue = try DatabaseQueue()
        try PhoneStore.migrator.migrate(queue, upTo: "phone-v11-homes")
        try await queue.write { db in
            for (index, id) in ["b", "a", "c"].enumerated() {
                try db.execute(
                    sql: "INSERT INTO phone (id, name, deviceId, fcmToken, pinLength, createdAt) VALUES (?, ?, ?, ?, 6, ?)",
                    arguments: [id, "phone \(id)", "device-\(id)", "token-\(id)", "2026-11-2\(index) 10:00:00.000"])
            }
        }
        let store = try PhoneStore(queue)
        let phones = try await store.phones()
        #expect(phones.map(\.id) == ["b", "a", "c"])
        #expect(phones.map(\.number) == ["+447700900000", "+447700900001", "+447700900002"])
        #expect(phones.map(\.fcmToken) == ["token-b", "token-a", "token-c"])
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func anOldPostgreSQLsPhonesGetNumbersInPlace() async throws {
        let postgres = try TestEngine.freshPostgres()
        try await postgres.migrate(Array(PhoneStore.postgresMigrations.prefix(2)))
        try await postgres.write { sql in
            for (index, id) in ["b", "a", "c"].enumerated() {
                try sql.execute(
                    "INSERT INTO phone (id, name, deviceId, fcmToken, pinLength, createdAt) VALUES (?, ?, ?, ?, 6, ?)",
                    [id, "phone \(id)", "device-\(id)", "token-\(id)", "2026-11-2\(index) 10:00:00.000"])
            }
        }
        let store = try await PhoneStore.open(postgres)
        #expect(try await store.phones().map(\.number) == ["+447700900000", "+447700900001", "+447700900002"])
    }
}
