import Foundation
import GRDB

/// The INSERT of one table's rows, each column named beside the value it takes from the record,
/// so the two cannot drift apart. Its SQL is written once and its statement prepared once per
/// connection (on either engine): GRDB's `insert` builds a dictionary of the columns and writes the SQL anew for
/// every row, which under load was nearly 3 % of the server's CPU for a login's dozen inserts.
/// `columnsLeftOut` lets a test hold the list against the migrated table, so a column added
/// later cannot be forgotten here.
public struct NamedInsert<Record>: Sendable {
    public typealias Value = @Sendable (Record) throws -> (any DatabaseValueConvertible)?

    public let table: String
    public let columns: [String]
    private let values: [Value]
    private let sql: String
    /// The key the database numbers itself, which `run` returns (`RETURNING`, on both engines).
    private let numberedKey: String?

    /// With `replacingOn` (a unique key's columns), a record whose key is stored already is
    /// written over that row instead (`ON CONFLICT … DO UPDATE`, on both engines).
    public init(
        into table: String, numbering numberedKey: String? = nil, replacingOn conflictKey: [String] = [],
        _ columns: KeyValuePairs<String, Value>
    ) {
        self.table = table
        self.columns = columns.map(\.key)
        self.numberedKey = numberedKey
        values = columns.map(\.value)
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let replacing = self.columns.filter { !conflictKey.contains($0) }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        sql =
            "INSERT INTO \(table) (\(self.columns.joined(separator: ", "))) VALUES (\(placeholders))"
            + (conflictKey.isEmpty ? "" : " ON CONFLICT (\(conflictKey.joined(separator: ", "))) DO UPDATE SET \(replacing)")
            + (numberedKey.map { " RETURNING \($0)" } ?? "")
    }

    /// Inserts `record`; returns the number the database gave its row, for a table that numbers them.
    @discardableResult
    public func run(_ record: Record, _ sql: any StoreSQL) throws -> Int64? {
        let row: [(any DatabaseValueConvertible)?] = try values.map { try $0(record) }
        guard numberedKey != nil else {
            try sql.execute(self.sql, row)
            return nil
        }
        return try sql.fetchOne(Int64.self, self.sql, row)
    }

    /// Writes every column of `record` over the row whose `key` (one of the columns) is the
    /// record's: a whole record changed at once, its columns named once, here. Answers how many
    /// rows changed, 0 when there was no such row.
    public func update(_ record: Record, key: String, _ sql: any StoreSQL) throws -> Int {
        guard let keyIndex = columns.firstIndex(of: key) else { preconditionFailure("\(key) is not a column of \(table)'s insert") }
        let row: [(any DatabaseValueConvertible)?] = try values.map { try $0(record) }
        let assignments = columns.map { "\($0) = ?" }.joined(separator: ", ")
        return try sql.execute("UPDATE \(table) SET \(assignments) WHERE \(key) = ?", row + [row[keyIndex]])
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
