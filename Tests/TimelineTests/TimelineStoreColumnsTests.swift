import TestDoubles
import Testing

@testable import Timeline

/// The named insert writes every column of the table: a column a migration adds must be added
/// there too; and the PostgreSQL schema has every column the SQLite one has.
@Suite struct TimelineStoreColumnsTests {
    @Test func hopInsertWritesEveryColumn() throws {
        let store = try TimelineStore.inMemory()
        #expect(try #require(store.sqliteWriter).read { try HopRecord.insertion.columnsLeftOut($0) } == [])
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func bothEnginesHaveTheSameColumns() async throws {
        #expect(try await SchemaTwins.differences(of: TimelineStore.self) == [])
    }
}
