import Foundation
import TestDoubles
import Testing

@testable import Storage

/// What instances sharing a PostgreSQL tell each other: a committed change reaches the others
/// and not its sender, a rolled-back one reaches nobody, and a listener whose connection is cut
/// listens again and says so.
@Suite(.enabled(if: TestEngine.postgresURL != nil, "needs AUTHPHONE_TEST_POSTGRES_URL (scripts/unit-test.sh sets it)"), .timeLimit(.minutes(1)))
struct StoreNoticesTests {
    typealias NoteStore = StoreStateTests.NoteStore
    struct Refused: Error {}

    /// Two instances on one schema, and the second's hearing, read up to its first `.listening`.
    static func twoInstances() async throws -> (NoteStore, NoteStore, AsyncStream<StoreHearing>.AsyncIterator) {
        let first = try await TestEngine.postgres.open(NoteStore.self)
        let second = try await TestEngine.postgres.otherInstance(of: first)
        var hearing = try #require(second.database.notices()).makeAsyncIterator()
        #expect(await hearing.next() == .listening)
        return (first, second, hearing)
    }

    @Test func aCommittedChangeReachesTheOtherInstanceOnly() async throws {
        var (first, second, heardBySecond) = try await Self.twoInstances()
        var heardByFirst = try #require(first.database.notices()).makeAsyncIterator()
        #expect(await heardByFirst.next() == .listening)
        try await first.write { try $0.announce(StoreNotice("note", "1")) }
        try await second.write { try $0.announce(StoreNotice("note", "2")) }
        #expect(await heardBySecond.next() == .changed(StoreNotice("note", "1")))
        #expect(await heardByFirst.next() == .changed(StoreNotice("note", "2")), "its own notice is not heard again")
    }

    @Test func aRolledBackChangeIsNotAnnounced() async throws {
        var (first, _, heard) = try await Self.twoInstances()
        await #expect(throws: Refused.self) {
            try await first.write { sql in
                try sql.announce(StoreNotice("note", "rolled back"))
                throw Refused()
            }
        }
        try await first.write { try $0.announce(StoreNotice("note", "committed")) }
        #expect(await heard.next() == .changed(StoreNotice("note", "committed")))
    }

    @Test func aListenerWhoseConnectionIsCutListensAgain() async throws {
        var (first, _, heard) = try await Self.twoInstances()
        guard case .postgres(let postgres) = first.database.engine else { throw Refused() }
        let cut = try await first.write { sql in
            try sql.fetchOne(
                Int.self, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE ?",
                ["LISTEN%\(postgres.channel)%"])
        }
        #expect(cut == 1)
        #expect(await heard.next() == .listening)
        try await first.write { try $0.announce(StoreNotice("note", "after")) }
        #expect(await heard.next() == .changed(StoreNotice("note", "after")))
    }
}
