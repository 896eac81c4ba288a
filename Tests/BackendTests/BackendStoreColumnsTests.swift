import GRDB
import TestDoubles
import Testing

@testable import Backend

/// The named inserts write every column of their tables: a column a migration adds must be added
/// there too; and the PostgreSQL schema has every table and column the SQLite one has.
@Suite struct BackendStoreColumnsTests {
    @Test func sessionInsertWritesEveryColumn() throws {
        let store = try BackendStore.inMemory()
        #expect(try store.writer.read { try SessionRecord.insertion.columnsLeftOut($0) } == [])
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func bothEnginesHaveTheSameColumns() async throws {
        #expect(try await SchemaTwins.differences(of: BackendStore.self) == [])
    }
}
