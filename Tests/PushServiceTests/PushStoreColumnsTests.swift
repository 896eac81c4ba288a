import TestDoubles
import Testing

@testable import PushService

/// The named inserts write every column of their tables: a column a migration adds must be added
/// there too; and the PostgreSQL schema has every table and column the SQLite one has.
@Suite struct PushStoreColumnsTests {
    @Test func inboxLogAndServiceAccountInsertsWriteEveryColumn() throws {
        let store = try PushStore.inMemory()
        #expect(try #require(store.sqliteWriter).read { try InboxRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try PushLogRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try ServiceAccountRecord.insertion.columnsLeftOut($0) } == [])
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func bothEnginesHaveTheSameColumns() async throws {
        #expect(try await SchemaTwins.differences(of: PushStore.self) == [])
    }
}
