import Foundation
import Synchronization
import TestDoubles
import Testing

@testable import Storage

/// What a store on PostgreSQL counts of its own work, which `/metrics` and the bench report: each
/// transaction run (a run again after a lost race too), each statement sent (BEGIN and COMMIT
/// too), and each run lost to a race.
@Suite(.enabled(if: TestEngine.postgresURL != nil, "needs AUTHPHONE_TEST_POSTGRES_URL (scripts/unit-test.sh sets it)"), .timeLimit(.minutes(1)))
struct DatabaseCountsTests {
    typealias NoteStore = StoreStateTests.NoteStore

    @Test func aTransactionCountsItselfAndEveryStatementItSends() async throws {
        let store = try await TestEngine.postgres.open(NoteStore.self)
        let counts = try #require(store.postgresCounts)
        let before = counts.totals
        try await store.write { sql in
            try sql.execute("INSERT INTO note (data) VALUES (?)", [Data([1])])
            try sql.execute("INSERT INTO note (data) VALUES (?)", [Data([2])])
        }
        _ = try await store.read { try $0.fetchOne(Int.self, "SELECT count(*) FROM note", []) }
        let after = counts.totals
        #expect(after.transactions - before.transactions == 2)
        #expect(after.statements - before.statements == 4 + 3, "BEGIN, two INSERTs, COMMIT; BEGIN, SELECT, COMMIT")
        #expect(after.lostRaces == before.lostRaces)
    }

    @Test func aWriteThatLosesARaceCountsTheLoss() async throws {
        let store = try await TestEngine.postgres.open(NoteStore.self)
        let counts = try #require(store.postgresCounts)
        try await store.write { try $0.execute("INSERT INTO note (data) VALUES (?)", [Data([0])]) }
        let before = counts.totals
        // Two writers read the row, then both change it: at SERIALIZABLE one of them loses,
        // and runs again. The first run of each waits until both have read.
        let gate = ReadGate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in [UInt8(1), 2] {
                let firstRun = ReadGate()
                group.addTask {
                    try await store.write { sql in
                        _ = try sql.fetchAll(Data.self, "SELECT data FROM note", [])
                        if firstRun.arrive() == 1 { gate.arriveAndWait(for: 2) }
                        try sql.execute("UPDATE note SET data = ?", [Data([value])])
                    }
                }
            }
            try await group.waitForAll()
        }
        let lost = counts.totals.lostRaces - before.lostRaces
        #expect(lost >= 1)
        #expect(counts.totals.transactions - before.transactions == 2 + lost, "a run again is a transaction more, as PostgreSQL counts it")
    }
}

/// A count of arrivals, and a wait (on the store's own thread) until enough have come.
private final class ReadGate: Sendable {
    private let arrived = Atomic(0)

    @discardableResult
    func arrive() -> Int { arrived.add(1, ordering: .relaxed).newValue }

    func arriveAndWait(for count: Int) {
        arrive()
        let deadline = Date().addingTimeInterval(5)
        while arrived.load(ordering: .relaxed) < count, Date() < deadline { usleep(1_000) }
    }
}
