import GRDB
import Synchronization

/// Writes that arrive while a commit is under way share the next transaction, and so its sync:
/// with `synchronous = FULL` a commit waits for the disk, and one commit per write would make the
/// disk, not the CPU, the limit on how many logins a second a store can take.
///
/// Each write still stands alone: it runs in a savepoint of its own, so one that throws is rolled
/// back and changes nothing, while the others in its batch go on. A write is answered only once
/// the transaction holding it is committed, so what it promises is what a transaction of its own
/// promised. A write that arrives when no commit is under way starts one at once: a lone write
/// waits for nobody.
///
/// SQLite may roll back the whole transaction when a statement fails (`SQLITE_FULL`,
/// `SQLITE_IOERR`, `SQLITE_BUSY`, `SQLITE_NOMEM`), taking the batch's earlier writes with it.
/// The write that failed hears its error; every other write of the batch runs again in a
/// transaction of its own, so none is acknowledged unless it was committed, and none is refused
/// for another's failure.
public final class GroupCommit: Sendable {
    public let writer: any DatabaseWriter
    private let state = Mutex(State())

    /// A write waiting for its batch: runs in the batch's transaction, and hands back how to
    /// answer its caller once that transaction has ended. A write alone in its batch runs in the
    /// transaction itself and throws out of it (a savepoint would only cost two statements more).
    private struct Job: Sendable {
        let run: @Sendable (Database, _ alone: Bool) throws -> Answer
        let fail: @Sendable (any Error) -> Void
    }
    private typealias Answer = @Sendable () -> Void

    private struct State {
        var waiting: [Job] = []
        var committing = false
        /// Why the last write that ended failed for want of storage; nil once one succeeds.
        var lastWriteFailure: String?
    }

    /// Why the last write failed when the storage itself failed (a full disk, an I/O error), until
    /// a write succeeds again: what `/ready` reports.
    public var lastWriteFailure: String? { state.withLock { $0.lastWriteFailure } }

    /// The most writes one transaction carries, so that one batch cannot hold the writer for long.
    static let maximumBatch = 256

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in a transaction shared with the writes that arrived with it; a thrown error
    /// rolls back `body`'s changes only, and is thrown here. When SQLite loses the batch's
    /// transaction, `body` runs again in one of its own: it must change nothing but the database.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            let value = try await enqueue(body)
            state.withLock { $0.lastWriteFailure = nil }
            return value
        } catch {
            if isStorageFailure(error), let failure = error as? DatabaseError {
                state.withLock { $0.lastWriteFailure = "SQLite error \(failure.resultCode.rawValue): \(failure.message ?? "\(failure.resultCode)")" }
            }
            throw error
        }
    }

    private func enqueue<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                run: { db, alone in
                    if alone {
                        let answer = try body(db)
                        return { continuation.resume(returning: answer) }
                    }
                    do {
                        let answer = try Self.inSavepoint(db) { try body(db) }
                        return { continuation.resume(returning: answer) }
                    } catch let lost as TransactionLost {
                        throw lost
                    } catch {
                        return { continuation.resume(throwing: error) }
                    }
                },
                fail: { continuation.resume(throwing: $0) })
            let leads = state.withLock { state in
                state.waiting.append(job)
                defer { state.committing = true }
                return !state.committing
            }
            if leads { Task { await commitWaiting() } }
        }
    }

    /// `body` in a savepoint of its own inside the batch's transaction: rolled back alone if it
    /// throws. The three statements are prepared once per connection; GRDB's `inSavepoint`
    /// prepared two anew for every write (about a percent of a login's CPU). A write after which
    /// the transaction is gone (SQLite rolled it back) throws `TransactionLost`.
    private static func inSavepoint<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "SAVEPOINT groupCommitWrite").execute()
        let result: T
        do {
            result = try body()
        } catch {
            guard db.isInsideTransaction else { throw TransactionLost(cause: error) }
            try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT groupCommitWrite").execute()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT groupCommitWrite").execute()
            throw error
        }
        // a write that caught a failure itself may still have lost the transaction
        guard db.isInsideTransaction else { throw TransactionLost(cause: DatabaseError(resultCode: .SQLITE_ABORT)) }
        try db.cachedStatement(sql: "RELEASE SAVEPOINT groupCommitWrite").execute()
        return result
    }

    /// SQLite rolled back the batch's transaction during one write's statements.
    private struct TransactionLost: Error {
        let cause: any Error
    }

    /// The batch's transaction was lost at `job`: the writes before it were rolled back with it.
    private struct BatchLost: Error {
        let job: Int
        let cause: any Error
    }

    /// Commits batch after batch until no write is waiting.
    private func commitWaiting() async {
        while let batch = nextBatch() {
            do {
                let alone = batch.count == 1
                let answers = try await writer.write { db in
                    try batch.indices.map { index in
                        do { return try batch[index].run(db, alone) } catch let lost as TransactionLost {
                            throw BatchLost(job: index, cause: lost.cause)
                        }
                    }
                }
                for answer in answers { answer() }
            } catch let lost as BatchLost {
                batch[lost.job].fail(lost.cause)
                for (index, job) in batch.enumerated() where index != lost.job { await runAlone(job) }
            } catch {
                // the commit itself failed, or the lone write threw: none of the batch's writes happened
                for job in batch { job.fail(error) }
            }
        }
    }

    /// A write of a lost batch, again in a transaction of its own: it happens or fails by itself.
    private func runAlone(_ job: Job) async {
        do {
            let answer = try await writer.write { db in try job.run(db, true) }
            answer()
        } catch {
            job.fail(error)
        }
    }

    /// Writes queued for the next batch (tests hold a commit open and watch them gather).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    private func nextBatch() -> [Job]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.committing = false
                return nil
            }
            let batch = Array(state.waiting.prefix(Self.maximumBatch))
            state.waiting.removeFirst(batch.count)
            return batch
        }
    }
}
