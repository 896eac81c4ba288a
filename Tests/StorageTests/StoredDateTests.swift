import Foundation
import GRDB
import TestDoubles
import Testing

@testable import Storage

/// `StoredDate` must write GRDB's own text, byte for byte: rows written before it and after it
/// are compared and ordered as text in SQL (`expiresAt > ?`).
@Suite struct StoredDateTests {
    /// Seconds since 1970 of 1600-01-01 and 10000-01-01, the ends of the range written by hand.
    static let firstHandWritten: TimeInterval = -11_676_096_000
    static let firstLeftToGRDB: TimeInterval = 253_402_300_800

    func expectGRDBsText(_ date: Date, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            StoredDate(date).databaseValue == date.databaseValue,
            "\(date.timeIntervalSince1970) s since 1970", sourceLocation: sourceLocation)
    }

    @Test func randomDatesAcrossTheYearsAreWrittenAsGRDBWritesThem() {
        var random = SplitMix(seed: 0xDA7E)
        for _ in 0..<5_000 {
            expectGRDBsText(Date(timeIntervalSince1970: .random(in: Self.firstHandWritten..<Self.firstLeftToGRDB, using: &random)))
        }
    }

    @Test func datesNearNowKeepTheirMilliseconds() {
        var random = SplitMix(seed: 0x0057)
        let now = Date().timeIntervalSince1970
        for _ in 0..<5_000 { expectGRDBsText(Date(timeIntervalSince1970: now + .random(in: -1e6...1e6, using: &random))) }
    }

    /// CoreFoundation rounds to the nearest millisecond and ICU then floors: the halves, the ends
    /// of a second and the times just before 1970 are where a formula of one's own goes wrong.
    @Test func millisecondsRoundWhereGRDBRoundsThem() {
        for whole in [-86_400.0, -1, 0, 1, 1_800_000_000, 1_800_000_059] {
            for fraction in [0, 0.0004, 0.0005, 0.0006, 0.4994, 0.4995, 0.9994, 0.9995, 0.9996, 0.999_999] {
                expectGRDBsText(Date(timeIntervalSince1970: whole + fraction))
                expectGRDBsText(Date(timeIntervalSince1970: whole - fraction))
            }
        }
        expectGRDBsText(Date(timeIntervalSinceReferenceDate: 0))
        expectGRDBsText(Date(timeIntervalSince1970: 951_782_400))  // 2000-02-29
        expectGRDBsText(Date(timeIntervalSince1970: 4_107_542_400))  // 2100-03-01, no 29 February before it
    }

    @Test func theEndsOfTheRangeAndBeyondAreGRDBs() {
        for seconds in [
            Self.firstHandWritten - 1, Self.firstHandWritten - 0.0004, Self.firstHandWritten, Self.firstHandWritten + 0.001,
            Self.firstLeftToGRDB - 0.001, Self.firstLeftToGRDB - 0.0004, Self.firstLeftToGRDB, -20_000_000_000, 400_000_000_000,
        ] {
            expectGRDBsText(Date(timeIntervalSince1970: seconds))
        }
        #expect(StoredDate.text(Date(timeIntervalSince1970: Self.firstHandWritten - 1)) == nil)
        #expect(StoredDate.text(Date(timeIntervalSince1970: Self.firstHandWritten)) == "1600-01-01 00:00:00.000")
        #expect(StoredDate.text(Date(timeIntervalSince1970: Self.firstLeftToGRDB - 0.001)) == "9999-12-31 23:59:59.999")
        #expect(StoredDate.text(Date(timeIntervalSince1970: Self.firstLeftToGRDB)) == nil)
    }

    struct Stamp: Codable, FetchableRecord, PersistableRecord, StoredDatesRecord {
        var id: Int
        var at: Date
        var until: Date?
    }

    /// A record that adopts `StoredDatesRecord` writes its dates through `StoredDate`, and they
    /// read back as GRDB reads its own.
    @Test func aRecordsDatesGoThroughStoredDateAndReadBack() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.create(table: "stamp") { table in
                table.column("id", .integer).primaryKey()
                table.column("at", .datetime).notNull()
                table.column("until", .datetime)
            }
            // The text is the same either way, so the strategy itself says whose it is.
            guard case .custom = Stamp.databaseDateEncodingStrategy(for: "at") else {
                Issue.record("GRDB's default date strategy was picked over StoredDatesRecord's")
                return
            }
            let at = Date(timeIntervalSince1970: 1_800_000_000.1239)
            try Stamp(id: 1, at: at, until: nil).insert(db)
            try Stamp(id: 2, at: at, until: at + 0.5).insert(db)
            #expect(try String.fetchAll(db, sql: "SELECT at FROM stamp ORDER BY id") == ["2027-01-15 08:00:00.124", "2027-01-15 08:00:00.124"])
            #expect(try String.fetchOne(db, sql: "SELECT until FROM stamp WHERE id = 2") == "2027-01-15 08:00:00.624")
            let read = try Stamp.fetchAll(db, sql: "SELECT * FROM stamp ORDER BY id")
            #expect(read.allSatisfy { abs($0.at.timeIntervalSince1970 - 1_800_000_000.124) < 1e-6 })
            #expect(read[0].until == nil)
            #expect(abs((read[1].until?.timeIntervalSince1970 ?? 0) - 1_800_000_000.624) < 1e-6)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM stamp WHERE at > ?", arguments: [StoredDate(at - 1)]) == 2)
        }
    }
}
