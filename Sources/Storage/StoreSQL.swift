import GRDB

/// The SQL of one transaction, on whichever engine the store was opened on. A store's named
/// operations are written once against it, in the SQL both SQLite and PostgreSQL speak (`?`
/// placeholders, `ON CONFLICT`, `RETURNING`, no engine's own functions). Values and rows are
/// GRDB's on both engines, so a record decodes from either one by the same code.
public protocol StoreSQL {
    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws -> Int
    /// Every row the query returns, each decoded as `Record`.
    func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws
        -> [Record]
    /// The first column of every row.
    func fetchAll<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?])
        throws -> [Value]
    /// The first row, if any.
    func fetchOne<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws
        -> Record?
    /// The first column of the first row; nil when there is no row or its value is NULL.
    func fetchOne<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?])
        throws -> Value?
    /// Empties every table of the store but `keeping` (and the migrations' record): a reset, or
    /// an import with `--replace` that fills them again in the same transaction.
    func emptyTables(keeping: Set<String>) throws
    /// Tells the other instances sharing the database of `notice` once this transaction commits,
    /// and not at all if it does not. One process alone on its SQLite file has no one to tell.
    func announce(_ notice: StoreNotice) throws
}

/// SQLite's side: GRDB's own connection, every statement prepared once per connection.
extension Database: StoreSQL {
    @discardableResult
    public func execute(_ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws -> Int {
        try cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
        return changesCount
    }

    public func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws
        -> [Record]
    {
        try Record.fetchAll(cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }

    public func fetchAll<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?])
        throws -> [Value]
    {
        try Value.fetchAll(cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }

    public func fetchOne<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws
        -> Record?
    {
        try Record.fetchOne(cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }

    public func fetchOne<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?])
        throws -> Value?
    {
        try Value.fetchOne(cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }

    public func announce(_ notice: StoreNotice) throws {}

    public func emptyTables(keeping: Set<String>) throws {
        // rows of one table may point into another: checked once all are gone
        try execute(sql: "PRAGMA defer_foreign_keys = ON")
        let tables = try String.fetchAll(
            self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'")
        for table in tables where !keeping.contains(table) {
            try execute(sql: "DELETE FROM \(table.quotedDatabaseIdentifier)")
        }
    }
}
