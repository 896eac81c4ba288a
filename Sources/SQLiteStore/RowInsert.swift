import Foundation
import GRDB
import Synchronization

extension MutablePersistableRecord where Self: Encodable & StoredDatesRecord {
    /// Inserts the record as GRDB's `insert` would, value for value, without GRDB's
    /// persistence container: GRDB fills a dictionary of the columns, looks up the table's
    /// primary key and writes the INSERT's SQL anew for every insert, and under load that was
    /// nearly 3 % of the server's CPU for the dozen inserts of a login. The statement is prepared
    /// once per column list. A record with a value this writer does not take on (a UUID, a value
    /// that is neither a database value nor an object or array, a container of its own) is
    /// inserted by GRDB itself. GRDB's persistence callbacks (`willInsert`, `didInsert`, …) are
    /// not called: a record that has any is inserted with `insert`. Returns the row's id, which a
    /// record with an auto-incremented key takes as its own.
    @discardableResult
    public func insertRow(_ db: Database) throws -> Int64 {
        let columns = RowWriter<Self>()
        try encode(to: columns)
        if columns.takesEveryValue {
            try db.cachedStatement(sql: columns.insertSQL).execute(arguments: StatementArguments(columns.values))
        } else {
            var record = self
            try record.insert(db)
        }
        return db.lastInsertedRowID
    }
}

/// Each record type's last column list and its INSERT.
private let insertStatements = Mutex<[ObjectIdentifier: (columns: [String], sql: String)]>([:])

/// The columns of one record in the order its `encode(to:)` writes them, each as GRDB would
/// store it: a `Date` through `StoredDate`, `Data` as a blob, a nested object or array as the
/// record's JSON encoder writes it, any other value by its own `databaseValue`, nil as NULL
/// (GRDB lists an absent optional's column too).
final class RowWriter<Record: MutablePersistableRecord & StoredDatesRecord>: Encoder {
    private(set) var names: [String] = []
    private(set) var values: [(any DatabaseValueConvertible)?] = []
    /// False once the record wrote a value this writer leaves to GRDB; the columns are then not used.
    private(set) var takesEveryValue = true

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Columns<Key>(writer: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        takesEveryValue = false
        return Discarded(writer: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        takesEveryValue = false
        return Discarded(writer: self)
    }

    /// The INSERT for these columns, written once per record type (and again only when a type
    /// writes another list of columns): writing it anew each time cost more than the insert.
    var insertSQL: String {
        let type = ObjectIdentifier(Record.self)
        if let known = insertStatements.withLock({ $0[type] }), known.columns == names { return known.sql }
        let sql =
            "INSERT INTO \(Self.quoted(Record.databaseTableName)) (\(names.map(Self.quoted).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        insertStatements.withLock { $0[type] = (names, sql) }
        return sql
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A column written twice keeps its last value, as in GRDB's container.
    fileprivate func set(_ value: DatabaseValue, for key: some CodingKey) {
        let name = key.stringValue
        if let index = names.firstIndex(of: name) {
            values[index] = value
        } else {
            names.append(name)
            values.append(value)
        }
    }

    fileprivate func set(_ value: some Encodable, for key: some CodingKey) {
        if let date = value as? Date {
            set(StoredDate(date).databaseValue, for: key)
        } else if let data = value as? Data, case .deferredToData = Record.databaseDataEncodingStrategy(for: key.stringValue) {
            set(data.databaseValue, for: key)
        } else if value is UUID || value is Data {
            takesEveryValue = false
        } else if let convertible = value as? any DatabaseValueConvertible {
            set(convertible.databaseValue, for: key)
        } else if let json = try? Record.databaseJSONEncoder(for: key.stringValue).encode(value),
            json.first == UInt8(ascii: "{") || json.first == UInt8(ascii: "[")
        {
            // An object or an array, which GRDB too writes as its JSON text with this encoder.
            // A value that writes a single value GRDB stores as that value: GRDB's to write.
            set(String(decoding: json, as: UTF8.self).databaseValue, for: key)
        } else {
            takesEveryValue = false
        }
    }

    private struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: RowWriter
        var codingPath: [any CodingKey] { [] }

        func encodeNil(forKey key: Key) { writer.set(.null, for: key) }
        func encode(_ value: Bool, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: String, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: Double, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: Float, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: Int, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: Int8, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: Int16, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: Int32, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: Int64, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: UInt, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: UInt8, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: UInt16, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: UInt32, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: UInt64, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encode(_ value: some Encodable, forKey key: Key) { writer.set(value, for: key) }

        // GRDB lists an absent optional's column as NULL, where Swift's defaults would leave it out.
        func encodeIfPresent(_ value: Bool?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: String?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: Double?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: Float?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: Int?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: Int8?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: Int16?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: Int32?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: Int64?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: UInt?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: UInt8?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: UInt16?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: UInt32?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: UInt64?, forKey key: Key) { writer.set(value.databaseValue, for: key) }
        func encodeIfPresent(_ value: (some Encodable)?, forKey key: Key) {
            if let value { writer.set(value, for: key) } else { writer.set(.null, for: key) }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            writer.takesEveryValue = false
            return KeyedEncodingContainer(Columns<NestedKey>(writer: writer))
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            writer.takesEveryValue = false
            return Discarded(writer: writer)
        }

        func superEncoder() -> any Encoder {
            writer.takesEveryValue = false
            return writer
        }

        func superEncoder(forKey key: Key) -> any Encoder {
            writer.takesEveryValue = false
            return writer
        }
    }

    /// Where a record's values go that this writer leaves to GRDB: nowhere, as GRDB then
    /// inserts the record.
    private struct Discarded: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        let writer: RowWriter
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        func encodeNil() {}
        func encode(_ value: some Encodable) {}
        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Columns<NestedKey>(writer: writer))
        }
        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        func superEncoder() -> any Encoder { writer }
    }
}
