import GRDB
import TestDoubles
import Testing

@testable import Backend

/// The named inserts write every column of their tables: a column a migration adds must be added
/// there too; and the PostgreSQL schema has every table and column the SQLite one has.
@Suite struct BackendStoreColumnsTests {
    @Test func everyInsertWritesEveryColumn() throws {
        let writer = try #require(try BackendStore.inMemory().sqliteWriter)
        let leftOut = try writer.read { db in
            [
                "session": try SessionRecord.insertion.columnsLeftOut(db), "account": try AccountRecord.insertion.columnsLeftOut(db),
                "device": try DeviceRecord.insertion.columnsLeftOut(db),
                "secondFactorAccount": try SecondFactorRecord.insertion.columnsLeftOut(db),
                "secondFactorPolicy": try SecondFactorPolicyRecord.insertion.columnsLeftOut(db),
                "serverFlag": try ServerFlagRecord.insertion.columnsLeftOut(db), "serverKey": try ServerKeyRecord.insertion.columnsLeftOut(db),
            ]
        }
        #expect(leftOut.filter { !$0.value.isEmpty } == [:])
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func bothEnginesHaveTheSameColumns() async throws {
        #expect(try await SchemaTwins.differences(of: BackendStore.self) == [])
    }
}
