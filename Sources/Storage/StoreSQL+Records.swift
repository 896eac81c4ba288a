import GRDB

/// A whole record's row written through `StoreSQL`, its columns as GRDB encodes them (dates as
/// `StoredDate`'s text, nested values as JSON): for rows written seldom (an enrolment, a setting,
/// an import). The rows every login writes have a `NamedInsert` and SQL of their own.
extension StoreSQL {
    /// Inserts `record`'s row.
    public func insert<Record: EncodableRecord & TableRecord>(_ record: Record) throws {
        let (columns, values) = try Self.columns(of: record)
        try execute(
            "INSERT INTO \(Record.databaseTableName) (\(columns.joined(separator: ", "))) VALUES (\(Self.placeholders(columns.count)))",
            values)
    }

    /// Inserts `record`'s row or, when a row with the same `key` is there, writes its other
    /// columns over that row's.
    public func save<Record: EncodableRecord & TableRecord>(_ record: Record, key: [String]) throws {
        let (columns, values) = try Self.columns(of: record)
        let keyNames = Set(key.map { $0.lowercased() })
        let changes = columns.filter { !keyNames.contains($0.lowercased()) }.map { "\($0) = excluded.\($0)" }
        try execute(
            "INSERT INTO \(Record.databaseTableName) (\(columns.joined(separator: ", "))) VALUES (\(Self.placeholders(columns.count)))"
                + " ON CONFLICT (\(key.joined(separator: ", "))) "
                + (changes.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(changes.joined(separator: ", "))"),
            values)
    }

    private static func columns(of record: some EncodableRecord) throws -> ([String], [(any DatabaseValueConvertible)?]) {
        let row = try record.databaseDictionary.sorted { $0.key < $1.key }
        return (row.map(\.key), row.map(\.value))
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
