import Foundation
import GRDB

/// A date as GRDB stores one (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), written without a DateFormatter.
/// GRDB formats every `Date` through ICU, and under load that was nearly 2 % of the server's CPU;
/// a login writes a dozen dates. The text is GRDB's to the byte (a test compares them), so rows
/// written either way read back the same, and GRDB still reads them.
public struct StoredDate: DatabaseValueConvertible, Sendable, Equatable {
    public var date: Date

    public init(_ date: Date) { self.date = date }

    public var databaseValue: DatabaseValue { Self.text(date).map(\.databaseValue) ?? date.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> StoredDate? {
        Date.fromDatabaseValue(dbValue).map(StoredDate.init)
    }

    /// GRDB's text for `date`, or nil for a year outside 1600–9999, which GRDB writes itself (its
    /// calendar is Julian before 1582, and the text has four digits of year). As CoreFoundation
    /// does, the time is rounded to the nearest millisecond and then split by floor, so a time
    /// before 1970 or at .9996 s lands where GRDB puts it.
    static func text(_ date: Date) -> String? {
        let milliseconds = ((date.timeIntervalSinceReferenceDate + 978_307_200) * 1000 + 0.5).rounded(.down)
        guard milliseconds >= -11_676_096_000_000, milliseconds < 253_402_300_800_000 else { return nil }
        let whole = Int(milliseconds)
        let seconds = whole >= 0 ? whole / 1000 : (whole - 999) / 1000
        let fraction = whole - seconds * 1000
        var time = time_t(seconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        var bytes = [UInt8](repeating: 0, count: 23)
        func put(_ value: Int, digits: Int, at end: Int) {
            var value = value
            for index in stride(from: end - 1, through: end - digits, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(Int(fields.tm_year) + 1900, digits: 4, at: 4)
        bytes[4] = UInt8(ascii: "-")
        put(Int(fields.tm_mon) + 1, digits: 2, at: 7)
        bytes[7] = UInt8(ascii: "-")
        put(Int(fields.tm_mday), digits: 2, at: 10)
        bytes[10] = UInt8(ascii: " ")
        put(Int(fields.tm_hour), digits: 2, at: 13)
        bytes[13] = UInt8(ascii: ":")
        put(Int(fields.tm_min), digits: 2, at: 16)
        bytes[16] = UInt8(ascii: ":")
        put(Int(fields.tm_sec), digits: 2, at: 19)
        bytes[19] = UInt8(ascii: ".")
        put(fraction, digits: 3, at: 23)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A record whose `Date` columns are written by `StoredDate`: adopting it is all a record does.
public protocol StoredDatesRecord: EncodableRecord {}

extension StoredDatesRecord {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { StoredDate($0) }
    }
}
