import Foundation
import GRDB
import Testing

@testable import Storage

/// What `/ready` reads of a store: a store whose writes fail for want of space is failing, though
/// it still reads, until a write succeeds again; a write refused for its own reasons is no failure.
@Suite struct StoreStateTests {
    struct NoteStore: Store, Sendable {
        static var migrator: DatabaseMigrator {
            var migrator = DatabaseMigrator()
            migrator.registerMigration("notes") { db in try db.execute(sql: "CREATE TABLE note (data BLOB)") }
            return migrator
        }
        static let postgresMigrations = [PostgresMigration("notes", ["CREATE TABLE note (data BYTEA)"])]
        let database: StoreDatabase
    }

    static func limitPages(_ store: NoteStore, to extra: Int) async throws {
        try await #require(store.sqliteWriter).writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + extra)")
        }
    }

    @Test func aFullStoreIsFailingUntilAWriteSucceeds() async throws {
        let store = try NoteStore.inMemory()
        #expect(await store.state().status == .ok)

        await #expect(throws: Refused.self) {
            try await store.write { _ in throw Refused() }
        }
        #expect(await store.state().status == .ok, "the caller's own refusal says nothing of the storage")

        try await Self.limitPages(store, to: 2)
        await #expect(throws: DatabaseError.self) {
            try await store.write { sql in try sql.execute("INSERT INTO note (data) VALUES (zeroblob(1000000))", []) }
        }
        let full = await store.state()
        #expect(full.status == .failing)
        #expect(full.message?.contains("full") == true, "\(full)")

        try await Self.limitPages(store, to: 10_000)
        try await store.write { sql in try sql.execute("INSERT INTO note (data) VALUES (zeroblob(1000000))", []) }
        #expect(await store.state().status == .ok)
    }

    /// Another process's lock on the file (a server's checkpoint while `authphone export` opens
    /// its folder) is waited for: the store opens once it is let go, not "database is locked".
    @Test func aStoreWaitsForAnotherConnectionsLock() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        _ = try NoteStore.open(path: path)
        let other = try DatabaseQueue(path: path)
        let (locked, release) = AsyncStream.makeStream(of: Void.self)
        let holder = Task.detached {
            try other.inDatabase { db in
                try db.execute(sql: "BEGIN EXCLUSIVE")
                release.yield()
                Thread.sleep(forTimeInterval: 0.3)
                try db.execute(sql: "COMMIT")
            }
        }
        for await _ in locked { break }
        let store = try NoteStore.open(path: path)
        try await store.write { sql in try sql.execute("INSERT INTO note (data) VALUES (x'00')", []) }
        try await holder.value
    }
}
