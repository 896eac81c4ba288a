import TestDoubles
import Testing

@testable import Phone

/// The named inserts write every column of their tables: a column a migration adds must be added
/// there too; and the PostgreSQL schema has every table and column the SQLite one has.
@Suite struct PhoneStoreColumnsTests {
    @Test func everyNamedInsertWritesEveryColumn() throws {
        let store = try PhoneStore.inMemory()
        #expect(try #require(store.sqliteWriter).read { try PhoneRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try AccountRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try OTPAccountRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try PushTokenRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try ContainerRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try ContainerTokenRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try #require(store.sqliteWriter).read { try TiqrIdentityRecord.insertion.columnsLeftOut($0) } == [])
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func bothEnginesHaveTheSameColumns() async throws {
        #expect(try await SchemaTwins.differences(of: PhoneStore.self) == [])
    }
}
