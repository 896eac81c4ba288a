import Foundation
import GRDB
import OutOfBand
import PushService
import Storage
import TestDoubles
import Testing

/// A database from before a token's rate window was one row (a row a send, `recentSend`)
/// migrates with its windows whole: the sends still counted are counted on, the ones gone by are not.
@Suite struct SendWindowMigrationTests {
    let clock = TestClock()

    /// Three sends to `t1` within the last minute and one long before, written as the old schema
    /// kept them.
    func oldSends(_ sql: (String, [(any DatabaseValueConvertible)?]) throws -> Void) throws {
        let now = clock.now().timeIntervalSince1970
        for sentAt in [now - 600, now - 50, now - 40.5, now - 30] {
            try sql("INSERT INTO recentSend (token, sentAt) VALUES (?, ?)", ["t1", sentAt])
        }
    }

    func send(_ service: PushService) async throws(FCMError) {
        let body = #"{"message": {"token": "t1", "data": {"k": "v"}}}"#
        _ = try await service.send(project: "demo", body: Array(body.utf8))
    }

    /// With a limit of 4 one more send is taken; the next is refused until the oldest of the
    /// three carried over (50 s ago) leaves the window.
    func expectWindowCarriedOver(_ store: PushStore) async throws {
        let clock = clock
        let service = PushService(store: store, configuration: .init(project: "demo", rateLimit: 4), now: { clock.now() })
        try await service.register(token: "t1")
        try await send(service)
        let refusal = await #expect(throws: FCMError.self) { try await send(service) }
        #expect(refusal?.retryAfter == 10)
    }

    @Test func onSQLite() async throws {
        let queue = try DatabaseQueue()
        try PushStore.migrator.migrate(queue, upTo: "push-v4-service-accounts")
        try await queue.write { db in try oldSends { try db.execute(sql: $0, arguments: StatementArguments($1)) } }
        try await expectWindowCarriedOver(try PushStore(queue))
    }

    @Test(.enabled(if: TestEngine.postgresURL != nil)) func onPostgreSQL() async throws {
        let postgres = try TestEngine.freshPostgres()
        try await postgres.migrate([PushStore.postgresMigrations[0]])
        try await postgres.write { sql in try oldSends { try sql.execute($0, $1) } }
        try await expectWindowCarriedOver(try await PushStore.open(postgres))
    }
}
