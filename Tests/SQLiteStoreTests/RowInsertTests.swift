import Foundation
import GRDB
import TestDoubles
import Testing

@testable import SQLiteStore

/// `insertRow` must leave the row GRDB's `insert` leaves, value for value, or hand the record to
/// GRDB: every store reads its rows back through GRDB.
@Suite struct RowInsertTests {
    enum Kind: String, Codable, DatabaseValueConvertible { case plain, odd }
    /// Codable without being a database value: GRDB stores the single value it encodes.
    enum Mood: String, Codable { case calm, keen }

    struct Sample: Codable, Equatable, FetchableRecord, MutablePersistableRecord, StoredDatesRecord {
        static let databaseTableName = "sample"
        var id: Int64?
        var text: String
        var count: Int
        var big: Int64?
        var small: UInt32?
        var ratio: Double
        var flag: Bool
        var bytes: Data?
        var at: Date
        var until: Date?
        var kind: Kind
        var maybeKind: Kind?
        /// Written as JSON, by GRDB's encoder either way.
        var labels: [String: String]?
        var steps: [Int]?
        /// A record that holds one is inserted by GRDB.
        var mood: Mood?
    }

    static func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.create(table: "sample") { table in
                table.autoIncrementedPrimaryKey("id")
                for column in [
                    "text", "count", "big", "small", "ratio", "flag", "bytes", "at", "until", "kind", "maybeKind", "labels", "steps", "mood",
                ] {
                    table.column(column)
                }
            }
        }
        return queue
    }

    static func random(_ random: inout SplitMix, mood: Bool) -> Sample {
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &random) ? value : nil }
        let text = String((0..<Int.random(in: 0...12, using: &random)).map { _ in "aé\"'😀 z\t".randomElement(using: &random)! })
        return Sample(
            id: nil, text: text, count: .random(in: .min ... .max, using: &random), big: maybe(.random(in: .min ... .max, using: &random)),
            small: maybe(.random(in: .min ... .max, using: &random)), ratio: .random(in: -1e12...1e12, using: &random),
            flag: .random(using: &random),
            bytes: maybe(Data((0..<Int.random(in: 0...8, using: &random)).map { _ in .random(in: 0...255, using: &random) })),
            at: Date(timeIntervalSince1970: .random(in: 0...4e9, using: &random)),
            until: maybe(Date(timeIntervalSince1970: .random(in: -1e10...1e10, using: &random))), kind: .random(using: &random) ? .plain : .odd,
            maybeKind: maybe(.odd), labels: maybe(["b": text, "a": "2", "é": "\n"]), steps: maybe([]),
            mood: mood ? maybe(.keen) : nil)
    }

    @Test func randomRecordsLeaveTheRowsGRDBLeaves() throws {
        var random = SplitMix(seed: 0x0A0B)
        let samples = (0..<2_000).map { _ in Self.random(&random, mood: true) }
        let byGRDB = try Self.database()
        let byRow = try Self.database()
        try byGRDB.write { db in for var sample in samples { try sample.insert(db) } }
        let ids = try byRow.write { db in try samples.map { try $0.insertRow(db) } }
        let expected = try byGRDB.read { try Row.fetchAll($0, sql: "SELECT * FROM sample ORDER BY id") }
        let written = try byRow.read { try Row.fetchAll($0, sql: "SELECT * FROM sample ORDER BY id") }
        #expect(written.count == samples.count)
        for (mine, theirs) in zip(written, expected) where mine != theirs {
            Issue.record("insertRow wrote \(mine), GRDB \(theirs)")
            break
        }
        #expect(ids == Array(1...Int64(samples.count)))
        #expect(try byRow.read { try Sample.fetchAll($0, sql: "SELECT * FROM sample ORDER BY id") }.map(\.text) == samples.map(\.text))
    }

    @Test func aRecordIsWrittenByHandUnlessAValueIsStoredAnotherWay() throws {
        var random = SplitMix(seed: 7)
        var sample = Self.random(&random, mood: false)
        sample.labels = ["b": "1", "a": "2"]
        sample.steps = [3, 1]
        let columns = RowWriter<Sample>()
        try sample.encode(to: columns)
        #expect(columns.takesEveryValue)
        #expect(
            columns.names == [
                "id", "text", "count", "big", "small", "ratio", "flag", "bytes", "at", "until", "kind", "maybeKind", "labels", "steps", "mood",
            ])
        #expect(columns.values[0]?.databaseValue == .null && columns.values.last??.databaseValue == .null)
        #expect(columns.values[12]?.databaseValue == #"{"a":"2","b":"1"}"#.databaseValue)
        #expect(columns.values[13]?.databaseValue == "[3,1]".databaseValue)
        #expect(columns.insertSQL.hasPrefix(#"INSERT INTO "sample" ("id", "text", "#))

        sample.mood = .calm
        let single = RowWriter<Sample>()
        try sample.encode(to: single)
        #expect(!single.takesEveryValue)
    }

    /// A record that writes a column twice keeps the last value, as GRDB's container does.
    struct Twice: Encodable, MutablePersistableRecord, StoredDatesRecord {
        static let databaseTableName = "sample"
        enum Keys: String, CodingKey { case text, count }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("first", forKey: .text)
            try container.encode(1, forKey: .count)
            try container.encode("last", forKey: .text)
        }
    }

    @Test func aColumnWrittenTwiceKeepsItsLastValue() throws {
        let queue = try Self.database()
        try queue.write { db in
            try Twice().insertRow(db)
            var record = Twice()
            try record.insert(db)
            #expect(try String.fetchAll(db, sql: "SELECT text || ' ' || count FROM sample ORDER BY id") == ["last 1", "last 1"])
        }
    }
}
