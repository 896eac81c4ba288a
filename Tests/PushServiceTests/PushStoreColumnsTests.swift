import Testing

@testable import PushService

/// The named inserts write every column of their tables: a column a migration adds must be added there too.
@Suite struct PushStoreColumnsTests {
    @Test func inboxLogAndServiceAccountInsertsWriteEveryColumn() throws {
        let store = try PushStore.inMemory()
        #expect(try store.writer.read { try InboxRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try store.writer.read { try PushLogRecord.insertion.columnsLeftOut($0) } == [])
        #expect(try store.writer.read { try ServiceAccountRecord.insertion.columnsLeftOut($0) } == [])
    }
}
