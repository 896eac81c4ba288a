import GRDB
import TestDoubles
import Testing

@testable import Backend

/// The named inserts write every column of their tables: a column a migration adds must be added
/// there too; and the PostgreSQL schema has every table and column the SQLite one has.
@Suite struct BackendStoreColumnsTests {
    @Test func everyInsertWritesEveryColumn() throws {
        let writer = try #require(try BackendStore.inMemory().sqliteWriter)
        try writer.read { db in
            #expect(try SessionRecord.insertion.columnsLeftOut(db) == [])
            #expect(try AccountRecord.insertion.columnsLeftOut(db) == [])
            #expect(try DeviceRecord.insertion.columnsLeftOut(db) == [])
            #expect(try SecondFactorRecord.insertion.columnsLeftOut(db) == [])
            #expect(try SecondFactorPolicyRecord.insertion.columnsLeftOut(db) == [])
            #expect(try ServerFlagRecord.insertion.columnsLeftOut(db) == [])
            #expect(try ServerKeyRecord.insertion.columnsLeftOut(db) == [])
        }
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func bothEnginesHaveTheSameColumns() async throws {
        #expect(try await SchemaTwins.differences(of: BackendStore.self) == [])
    }
}
