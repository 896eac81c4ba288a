import Foundation
import GRDB

/// The INSERT of one table's rows, each column named beside the value it takes from the record,
/// so the two cannot drift apart. Its SQL is written once and its statement prepared once per
/// connection: GRDB's `insert` builds a dictionary of the columns and writes the SQL anew for
/// every row, which under load was nearly 3 % of the server's CPU for a login's dozen inserts.
/// `columnsLeftOut` lets a test hold the list against the migrated table, so a column added
/// later cannot be forgotten here.
public struct NamedInsert<Record>: Sendable {
    public typealias Value = @Sendable (Record) throws -> (any DatabaseValueConvertible)?

    public let table: String
    public let columns: [String]
    private let values: [Value]
    private let sql: String

    public init(into table: String, _ columns: KeyValuePairs<String, Value>) {
        self.table = table
        self.columns = columns.map(\.key)
        values = columns.map(\.value)
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        sql =
            "INSERT INTO \(table.quotedDatabaseIdentifier) (\(self.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(placeholders))"
    }

    /// Inserts `record`; returns the row's id (an auto-incremented key's value).
    @discardableResult
    public func run(_ record: Record, _ db: Database) throws -> Int64 {
        let row: [(any DatabaseValueConvertible)?] = try values.map { try $0(record) }
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(row))
        return db.lastInsertedRowID
    }

    /// The table's columns this insert does not write, but for a key SQLite numbers itself.
    public func columnsLeftOut(_ db: Database) throws -> [String] {
        let numbered = try db.primaryKey(table).rowIDColumn
        return try db.columns(in: table).map(\.name).filter { $0 != numbered && !columns.contains($0) }
    }
}

extension EncodableRecord {
    /// A nested value's column: JSON, as GRDB writes one for the record (no record here sets a
    /// column's encoder of its own), so GRDB reads it back.
    public static func jsonText(_ value: (some Encodable)?) throws -> String? {
        try value.map { String(decoding: try databaseJSONEncoder(for: "").encode($0), as: UTF8.self) }
    }
}
