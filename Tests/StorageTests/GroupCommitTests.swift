import Foundation
import GRDB
import Synchronization
import Testing

@testable import Storage

/// Counts the transactions the database commits.
final class CommitCounter: TransactionObserver, Sendable {
    private let commits = Mutex(0)
    var count: Int { commits.withLock { $0 } }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}

struct Refused: Error {}

/// The SQL a connection ran, as its trace reports it.
final class StatementLog: Sendable {
    private let statements = Mutex<[String]>([])
    var all: [String] { statements.withLock { $0 } }
    func append(_ statement: String) { statements.withLock { $0.append(statement) } }
}

@Suite struct GroupCommitTests {
    let queue: DatabaseQueue
    let commits: GroupCommit
    let counter = CommitCounter()

    init() throws {
        let queue = try DatabaseQueue()
        try queue.write { [counter] db in
            try db.execute(sql: "CREATE TABLE item (name TEXT NOT NULL UNIQUE)")
            db.add(transactionObserver: counter, extent: .databaseLifetime)
        }
        self.queue = queue
        commits = GroupCommit(queue)
    }

    func names() throws -> [String] {
        try queue.read { try String.fetchAll($0, sql: "SELECT name FROM item ORDER BY name") }
    }

    @Test func aLoneWriteCommitsAtOnceAndAnswersItsValue() async throws {
        let before = counter.count
        let rowid = try await commits.write { db in
            try db.execute(sql: "INSERT INTO item (name) VALUES ('alone')")
            return db.lastInsertedRowID
        }
        #expect(rowid == 1)
        #expect(try names() == ["alone"])
        #expect(counter.count == before + 1)
    }

    /// While one commit holds the writer, the writes that arrive wait, and then all go in one
    /// transaction; the one that throws is rolled back alone and its caller hears why.
    @Test func writesArrivingDuringACommitShareTheNextOneAndAFailureStaysItsOwn() async throws {
        let before = counter.count
        let outcomes = try await Self.batch(
            commits,
            (0..<10).map { index in
                { db in
                    // the fifth repeats a name the table allows once, then fails after its insert
                    try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: ["item-\(index)"])
                    if index == 5 {
                        try db.execute(sql: "INSERT INTO item (name) VALUES ('doomed')")
                        throw Refused()
                    }
                }
            })
        #expect(outcomes.map { (try? $0.get()) == nil } == (0..<10).map { $0 == 5 })
        #expect(counter.count == before + 2)  // the holding write's commit, then one for all ten
        #expect(try names() == (0..<10).filter { $0 != 5 }.map { "item-\($0)" })
    }

    /// Alone in its batch a write needs no savepoint: the transaction is its own.
    @Test func aLoneWriteRunsWithoutASavepoint() async throws {
        let statements = StatementLog()
        try await queue.write { [statements] db in db.trace { statements.append("\($0)") } }
        try await commits.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('alone')") }
        #expect(statements.all.contains { $0.contains("INSERT") })
        #expect(!statements.all.contains { $0.uppercased().contains("SAVEPOINT") })
    }

    /// Holds the writer with one write while `writes` gather behind it, then lets them go as one
    /// batch; each one's outcome, in order.
    static func batch(
        _ commits: GroupCommit, _ writes: [@Sendable (Database) throws -> Void]
    ) async throws -> [Result<Void, any Error>] {
        let release = DispatchSemaphore(value: 0)
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await commits.write { _ in
                enter.yield()
                release.wait()
            }
        }
        for await _ in entered { break }
        let tasks = writes.map { write in Task { try await commits.write(write) } }
        while commits.waitingCount < writes.count { await Task.yield() }
        release.signal()
        try await first.value
        var outcomes: [Result<Void, any Error>] = []
        for task in tasks { outcomes.append(await task.result) }
        return outcomes
    }

    /// A database that fills in the middle of a batch: SQLite rolls back the whole transaction
    /// (a row that overflows `max_page_count` in a table without indexes has no statement
    /// journal to undo it alone). The write that filled it hears SQLITE_FULL; the writes before
    /// and after it happen, each once, and the file opened anew holds exactly them.
    @Test func aDatabaseFillingMidBatchLosesNoWriteAndAcknowledgesNoneItRolledBack() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("full.sqlite").path
        let file = try DatabaseQueue(path: path)
        try await file.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE item (name TEXT NOT NULL UNIQUE); CREATE TABLE filler (data BLOB)")
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + 4)")
        }
        let commits = GroupCommit(file)
        let writes: [@Sendable (Database) throws -> Void] = (0..<8).map { index in
            { db in
                try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: ["item-\(index)"])
                if index == 3 { try db.execute(sql: "INSERT INTO filler (data) VALUES (zeroblob(1000000))") }
            }
        }
        let outcomes = try await Self.batch(commits, writes)
        for (index, outcome) in outcomes.enumerated() {
            switch (index, outcome) {
            case (3, .failure(let error)): #expect((error as? DatabaseError)?.resultCode == .SQLITE_FULL)
            case (3, .success): Issue.record("the write that filled the database was acknowledged")
            case (_, .failure(let error)): Issue.record("write \(index) was refused for another's failure: \(error)")
            case (_, .success): break
            }
        }
        try file.close()
        let reopened = try DatabaseQueue(path: path)
        let names = try await reopened.read { try String.fetchAll($0, sql: "SELECT name FROM item ORDER BY name") }
        #expect(names == (0..<8).filter { $0 != 3 }.map { "item-\($0)" })
        #expect(try await reopened.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM filler") } == 0)
    }

    /// A write that swallows the failure that cost the transaction is not acknowledged either:
    /// its changes went with the transaction.
    @Test func aWriteThatCatchesTheLossOfTheTransactionIsRefused() async throws {
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE filler (data BLOB)")
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + 4)")
        }
        let outcomes = try await Self.batch(
            commits,
            [
                { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('before')") },
                { db in
                    try db.execute(sql: "INSERT INTO item (name) VALUES ('swallowed')")
                    try? db.execute(sql: "INSERT INTO filler (data) VALUES (zeroblob(1000000))")
                },
                { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('after')") },
            ])
        #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true])
        #expect(try names() == ["after", "before"])
    }

    @Test func aWriteThatThrowsAloneChangesNothing() async throws {
        await #expect(throws: Refused.self) {
            try await commits.write { db in
                try db.execute(sql: "INSERT INTO item (name) VALUES ('kept?')")
                throw Refused()
            }
        }
        #expect(try names().isEmpty)
    }
}
