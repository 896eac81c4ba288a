import Testing

@testable import Timeline

/// The named insert writes every column of the table: a column a migration adds must be added there too.
@Suite struct TimelineStoreColumnsTests {
    @Test func hopInsertWritesEveryColumn() throws {
        let store = try TimelineStore.inMemory()
        #expect(try store.writer.read { try HopRecord.insertion.columnsLeftOut($0) } == [])
    }
}
