import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// PostgreSQL's side of `StoreSQL`: one leased connection inside a transaction, on a thread of
/// the store's own pool, where waiting for an answer holds no event loop and no task. The SQL is
/// the stores' shared dialect: its `?` placeholders become `$1…$n`, its values go as int8,
/// float8, text or bytea, and the rows come back as GRDB's, so records decode as they do from
/// SQLite.
struct PostgresSQL: StoreSQL {
    let connection: PostgresConnection
    let logger: Logger
    /// Where `announce` tells, and who tells (`PostgresDatabase.notices()`).
    let channel: String
    let instance: String
    /// When the transaction is given up: a statement whose answer has not come by then never
    /// gets one on this connection, which is closed (seen when PostgreSQL stopped as a
    /// statement was sent: postgres-nio 1.33.2 left its answer waiting for ever).
    let deadline: NIODeadline
    /// Where the server is, for the error that says it did not answer.
    let location: String
    /// Told of each statement sent, BEGIN and COMMIT included.
    let counts: DatabaseCounts

    @discardableResult
    func execute(_ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws
        -> [Record]
    {
        try run(sql, arguments).rows.map { try Record(row: Self.row($0)) }
    }

    func fetchAll<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?])
        throws -> [Value]
    {
        try run(sql, arguments).rows.map { row in
            let value = try Self.value(row.makeRandomAccess()[0])
            guard let converted = Value.fromDatabaseValue(value) else {
                throw PostgresValueError(message: "\(value) is not a \(Value.self) (\(sql))")
            }
            return converted
        }
    }

    func fetchOne<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws
        -> Record?
    {
        try fetchAll(type, sql, arguments).first
    }

    func fetchOne<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: [(any DatabaseValueConvertible)?])
        throws -> Value?
    {
        guard let row = try run(sql, arguments).rows.first else { return nil }
        return Value.fromDatabaseValue(try Self.value(row.makeRandomAccess()[0]))
    }

    func announce(_ notice: StoreNotice) throws {
        try execute("SELECT pg_notify(?, ?)", [channel, "\(instance) \(notice.topic) \(notice.id)"])
    }

    func emptyTables(keeping: Set<String>) throws {
        let kept = Set(keeping.map { $0.lowercased() }).union(["schema_migrations"])
        let tables = try fetchAll(String.self, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()", [])
            .filter { !kept.contains($0) }
        guard !tables.isEmpty else { return }
        try execute("TRUNCATE \(tables.map { "\"\($0)\"" }.joined(separator: ", "))", [])
    }

    /// Statements without arguments: a transaction's BEGIN and COMMIT, a migration's DDL.
    func run(_ sql: String) throws {
        _ = try answer(PostgresQuery(unsafeSQL: sql))
    }

    private func run(_ sql: String, _ arguments: [(any DatabaseValueConvertible)?]) throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { Self.bind(argument?.databaseValue ?? .null, into: &bindings) }
        return try answer(PostgresQuery(unsafeSQL: Self.numbered(sql), binds: bindings))
    }

    /// `query`'s answer, waited for until the deadline at most.
    private func answer(_ query: PostgresQuery) throws -> PostgresQueryResult {
        counts.sent()
        let eventLoop = connection.eventLoop
        let answered = eventLoop.makePromise(of: PostgresQueryResult.self)
        // both run on the connection's event loop, and the later of the two changes nothing
        let giveUp = eventLoop.scheduleTask(deadline: deadline) { answered.fail(QueryDeadlinePassed()) }
        connection.query(query, logger: logger).whenComplete { result in
            giveUp.cancel()
            answered.completeWith(result)
        }
        do {
            return try answered.futureResult.wait()
        } catch is QueryDeadlinePassed {
            connection.close().whenComplete { _ in }
            throw StorageUnavailable(database: location, reason: "did not answer within the transaction's time")
        }
    }

    private static func bind(_ value: DatabaseValue, into bindings: inout PostgresBindings) {
        switch value.storage {
        case .null: bindings.appendNull()
        case .int64(let integer): bindings.append(integer)
        case .double(let double): bindings.append(double)
        case .string(let string): bindings.append(string)
        case .blob(let data): bindings.append(ByteBuffer(bytes: data))
        }
    }

    /// A row as GRDB's, its columns by name (PostgreSQL folds unquoted names to lower case, and
    /// GRDB's lookups ignore case).
    private static func row(_ row: PostgresRow) throws -> Row {
        var columns: [String: (any DatabaseValueConvertible)?] = [:]
        for cell in row { columns[cell.columnName] = try value(cell) }
        return Row(columns)
    }

    /// A cell's value as SQLite would hold it: booleans as 0 or 1, every whole number as Int64.
    private static func value(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2: return try Int64(cell.decode(Int16.self)).databaseValue
        case .int4: return try Int64(cell.decode(Int32.self)).databaseValue
        case .int8: return try cell.decode(Int64.self).databaseValue
        case .float4: return try Double(cell.decode(Float.self)).databaseValue
        case .float8: return try cell.decode(Double.self).databaseValue
        case .bool: return try (cell.decode(Bool.self) ? 1 : 0 as Int64).databaseValue
        case .bytea: return try Data(buffer: cell.decode(ByteBuffer.self)).databaseValue
        case .numeric:
            let text = try cell.decode(String.self)
            return Int64(text)?.databaseValue ?? Double(text)?.databaseValue ?? text.databaseValue
        default: return try cell.decode(String.self).databaseValue
        }
    }

    /// The stores' statements numbered once each: they are a fixed set, written in their code,
    /// and every query would otherwise walk its SQL again.
    private static let numberedStatements = Mutex<[String: String]>([:])

    static func numbered(_ sql: String) -> String {
        if let known = numberedStatements.withLock({ $0[sql] }) { return known }
        let numbered = numberingPlaceholders(sql)
        numberedStatements.withLock { $0[sql] = numbered }
        return numbered
    }

    /// `?` becomes `$1`, `$2`, …, but inside a quoted string or name, where it is itself.
    static func numberingPlaceholders(_ sql: String) -> String {
        var numbered = ""
        numbered.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                numbered.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                numbered.append(character)
            } else if character == "?" {
                count += 1
                numbered += "$\(count)"
            } else {
                numbered.append(character)
            }
        }
        return numbered
    }
}

private struct QueryDeadlinePassed: Error {}

/// A column whose value is not what the store asked for: a mismatch between a store's SQL and
/// its PostgreSQL schema, which the store suite would catch.
struct PostgresValueError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
