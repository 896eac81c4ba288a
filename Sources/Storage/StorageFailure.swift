import GRDB
import PostgresNIO

/// A write refused because the disk (or SQLite's page limit) is full: the one storage failure
/// the operator must fix, so the edge says it apart (507) from the rest (503).
public func isStorageFull(_ error: any Error) -> Bool {
    switch error {
    case let sqlite as DatabaseError: sqlite.resultCode == .SQLITE_FULL
    case let postgres as PSQLError: postgres.serverInfo?[.sqlState] == "53100"
    default: false
    }
}

/// A failure of the storage itself (the disk, the file, memory, the database server or the way
/// to it), not of what a write asked for (a constraint, a refusal of the caller's): what makes
/// a store unready, and what the edge answers with 503.
public func isStorageFailure(_ error: any Error) -> Bool {
    switch error {
    case is StorageUnavailable: true
    case let sqlite as DatabaseError:
        [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_NOMEM, .SQLITE_PERM]
            .contains(sqlite.resultCode)
    case let postgres as PSQLError:
        if let state = postgres.serverInfo?[.sqlState] {
            // connection, resources, operator intervention (a shutdown), system and internal errors
            ["08", "53", "57", "58", "XX"].contains(String(state.prefix(2)))
        } else {
            // the connection itself: refused, closed, the pool ended
            true
        }
    default: false
    }
}

/// An error of either engine or of the way to it, whatever its cause: what the edge answers
/// with 503 when no part put it in its own words.
public func isStoreError(_ error: any Error) -> Bool {
    error is DatabaseError || error is PSQLError || error is StorageUnavailable
}
