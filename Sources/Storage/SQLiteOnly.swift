import GRDB

// TRANSITIONAL (issue 33): the stores not yet written against `StoreSQL` reach SQLite directly
// through these; the file goes once every store runs on both engines.
extension Store {
    public var writer: any DatabaseWriter {
        guard case .sqlite(let writer, _) = database.engine else { preconditionFailure("\(Self.self) does not run on PostgreSQL yet") }
        return writer
    }

    public var commits: GroupCommit {
        guard case .sqlite(_, let commits) = database.engine else { preconditionFailure("\(Self.self) does not run on PostgreSQL yet") }
        return commits
    }

    public func readHere<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.read(body)
    }
}
