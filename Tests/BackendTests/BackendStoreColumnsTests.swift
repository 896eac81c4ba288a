import GRDB
import Testing

@testable import Backend

/// The named inserts write every column of their tables: a column a migration adds must be added there too.
@Suite struct BackendStoreColumnsTests {
    @Test func sessionInsertWritesEveryColumn() throws {
        let store = try BackendStore.inMemory()
        #expect(try store.writer.read { try SessionRecord.insertion.columnsLeftOut($0) } == [])
    }
}
