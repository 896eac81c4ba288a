import Foundation
import GRDB
import Testing

@testable import Storage

/// A named INSERT leaves the row GRDB's own `insert` leaves, value for value, so GRDB reads it
/// back; and it tells which of the table's columns it leaves out.
@Suite struct NamedInsertTests {
    struct Note: Codable, Equatable, FetchableRecord, MutablePersistableRecord, StoredDatesRecord {
        static let databaseTableName = "note"
        var id: Int64?
        var text: String
        var at: Date
        var until: Date?
        var body: Data?
        var tags: [String: String]?
        var done: Bool

        static let insertion = NamedInsert<Note>(
            into: databaseTableName, numbering: "id",
            [
                "text": { $0.text }, "at": { StoredDate($0.at) }, "until": { $0.until.map(StoredDate.init) }, "body": { $0.body },
                "tags": { try jsonText($0.tags) }, "done": { $0.done },
            ])

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    static func database(extraColumn: String? = nil) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.create(table: "note") { table in
                table.autoIncrementedPrimaryKey("id")
                for column in ["text", "at", "until", "body", "tags", "done"] + (extraColumn.map { [$0] } ?? []) { table.column(column) }
            }
        }
        return queue
    }

    static let notes = [
        Note(id: nil, text: "plain", at: Date(timeIntervalSince1970: 1_700_000_000.125), until: nil, body: nil, tags: nil, done: false),
        Note(
            id: nil, text: "é \"quoted\" 😀", at: Date(timeIntervalSince1970: -86_400.5), until: Date(timeIntervalSince1970: 4e9),
            body: Data([0, 1, 255]), tags: ["b": "2", "a": "1"], done: true),
    ]

    @Test(arguments: notes) func writesTheRowGRDBWrites(_ note: Note) throws {
        let queue = try Self.database()
        let (named, grdb) = try queue.write { db in
            let named = try Note.insertion.run(note, db)
            var copy = note
            try copy.insert(db)
            return (named, try #require(copy.id))
        }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM note ORDER BY id") }
        #expect(rows.count == 2)
        #expect(rows[0]["id"] == named && rows[1]["id"] == grdb)
        let columns = ["text", "at", "until", "body", "tags", "done"]
        #expect(columns.map { rows[0][$0] as DatabaseValue } == columns.map { rows[1][$0] as DatabaseValue })
        var expected = note
        expected.id = named
        #expect(try queue.read { db in try Note.fetchOne(db, key: named) } == expected)
    }

    @Test func tellsTheColumnsItLeavesOut() throws {
        #expect(try Self.database().read { try Note.insertion.columnsLeftOut($0) } == [])
        #expect(try Self.database(extraColumn: "colour").read { try Note.insertion.columnsLeftOut($0) } == ["colour"])
    }

    struct Tally: Codable, Equatable, FetchableRecord {
        var name: String
        var count: Int

        static let insertion = NamedInsert<Tally>(into: "tally", replacingOn: ["name"], ["name": { $0.name }, "count": { $0.count }])
    }

    /// A record whose key is stored already is written over that row, by an insert that replaces
    /// on its key or by an update through the key; an update of a key not stored changes nothing.
    @Test func aRecordIsWrittenOverItsRowOnItsKey() throws {
        let queue = try DatabaseQueue()
        func tallies() throws -> [Tally] { try queue.read { try Tally.fetchAll($0, sql: "SELECT * FROM tally") } }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE tally (name TEXT PRIMARY KEY, count INTEGER NOT NULL)")
            try Tally.insertion.run(Tally(name: "a", count: 1), db)
            try Tally.insertion.run(Tally(name: "a", count: 2), db)
        }
        #expect(try tallies() == [Tally(name: "a", count: 2)])
        let changed = try queue.write { db in
            [
                try Tally.insertion.update(Tally(name: "a", count: 3), key: "name", db),
                try Tally.insertion.update(Tally(name: "b", count: 4), key: "name", db),
            ]
        }
        #expect(changed == [1, 0])
        #expect(try tallies() == [Tally(name: "a", count: 3)])
    }
}
