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
    }

    /// The most writes one transaction carries, so that one batch cannot hold the writer for long.
    static let maximumBatch = 256

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in a transaction shared with the writes that arrived with it; a thrown error
    /// rolls back `body`'s changes only, and is thrown here.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
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
    /// prepared two anew for every write (about a percent of a login's CPU).
    private static func inSavepoint<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "SAVEPOINT groupCommitWrite").execute()
        do {
            let result = try body()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT groupCommitWrite").execute()
            return result
        } catch {
            try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT groupCommitWrite").execute()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT groupCommitWrite").execute()
            throw error
        }
    }

    /// Commits batch after batch until no write is waiting.
    private func commitWaiting() async {
        while let batch = nextBatch() {
            do {
                let alone = batch.count == 1
                let answers = try await writer.write { db in try batch.map { try $0.run(db, alone) } }
                for answer in answers { answer() }
            } catch {
                // the commit itself failed, or the lone write threw: none of the batch's writes happened
                for job in batch { job.fail(error) }
            }
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
