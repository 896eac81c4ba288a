import Foundation

extension WireJSON {
    /// `value`'s JSON, byte for byte what `encoder()` writes, written straight into one buffer.
    /// Foundation's encoder builds a tree of boxed values and then writes it, which made JSON
    /// the largest single cost of a login (9 % of the server's CPU); this writes as it goes and
    /// sorts an object's members only when they came unsorted. What it does not take on
    /// (nested containers, `Decimal`, a float JSON cannot hold) goes to `encoder()` whole.
    public static func bytes(_ value: some Encodable) throws -> [UInt8] {
        let writer = WireJSONWriter()
        do {
            try writer.write(value)
            return writer.bytes
        } catch is WireJSONWriter.Unsupported {
            return Array(try encoder().encode(value))
        }
    }

    public static func data(_ value: some Encodable) throws -> Data {
        Data(try bytes(value))
    }

    public static func string(_ value: some Encodable) throws -> String {
        String(decoding: try bytes(value), as: UTF8.self)
    }

    /// `text` as a JSON string, as every string is written: quote, backslash and control
    /// characters escaped, the rest as UTF-8.
    /// `text` as a JSON string on its own, written as `appendString` writes it (which is also
    /// RFC 8785's canonical form of a string).
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var plain = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain..<index]))
                plain = index + 1
                appendEscape(byte, to: &bytes)
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
        case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
        case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
        case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
        case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
        case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: #"\u00"#.utf8)
            bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}

/// The writer behind `WireJSON.bytes`: one per value. A container writes into `bytes` while
/// its value is the one being written; a value's own `encode(to:)` says which container it is.
final class WireJSONWriter: Encoder {
    struct Unsupported: Error {}

    /// What the value being written has opened so far.
    private enum Frame {
        case nothing
        case single(written: Bool)
        case object(firstMember: Int)
        case array(count: Int)
    }

    /// An object's member as written: where it starts in `bytes`, and its key for sorting.
    private struct Member {
        let start: Int
        let key: String
    }

    private(set) var bytes: [UInt8] = []
    private var frame = Frame.nothing
    /// The members of every object still open, innermost last.
    private var members: [Member] = []
    /// An unsorted object's members in key order, and their bytes: kept to be reused.
    private var order: [Int] = []
    private var sorted: [UInt8] = []
    /// Set by what cannot throw where it is asked for (a second container, a nested one).
    private var unsupported = false

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init() {
        bytes.reserveCapacity(512)
    }

    // MARK: values

    func write<T: Encodable>(_ value: T) throws {
        // the types Foundation's encoder writes in its own way, and the common ones without a container
        if T.self == String.self { return string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return integer(unsafeBitCast(value, to: Int.self)) }
        if T.self == Bool.self { return bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Date.self { return try date(unsafeBitCast(value, to: Date.self)) }
        if T.self == Data.self { return string(unsafeBitCast(value, to: Data.self).base64EncodedString()) }
        if T.self == URL.self { return string(unsafeBitCast(value, to: URL.self).absoluteString) }
        if T.self == Decimal.self { throw Unsupported() }
        let outer = frame
        frame = .nothing
        do { try value.encode(to: self) } catch {
            // a value that catches its part's error and goes on is left to Foundation whole
            unsupported = true
            throw error
        }
        if unsupported { throw Unsupported() }
        switch frame {
        case .nothing:
            // a value that writes nothing is an empty object, but not at the top, where Foundation refuses it
            // (only the top-level value is written with nothing open around it)
            if case .nothing = outer { throw Unsupported() }
            bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        case .single(let written): if !written { throw Unsupported() }
        case .object(let firstMember): closeObject(from: firstMember)
        case .array: bytes.append(UInt8(ascii: "]"))
        }
        frame = outer
    }

    func null() { bytes.append(contentsOf: "null".utf8) }
    func bool(_ value: Bool) { bytes.append(contentsOf: value ? "true".utf8 : "false".utf8) }
    func integer(_ value: some FixedWidthInteger) { bytes.append(contentsOf: String(value).utf8) }

    func float<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) throws {
        guard value.isFinite else { throw Unsupported() }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// ISO 8601 in UTC to the second, as `.iso8601` writes it.
    private func date(_ value: Date) throws {
        guard var seconds = time_t(exactly: value.timeIntervalSince1970.rounded(.down)) else { throw Unsupported() }
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { throw Unsupported() }
        let year = Int(parts.tm_year) + 1900
        // before the Gregorian calendar (1582) Foundation's calendar is the Julian one
        guard (1600...9999).contains(year) else { throw Unsupported() }
        bytes.append(UInt8(ascii: "\""))
        digits(year, 4, then: "-")
        digits(Int(parts.tm_mon) + 1, 2, then: "-")
        digits(Int(parts.tm_mday), 2, then: "T")
        digits(Int(parts.tm_hour), 2, then: ":")
        digits(Int(parts.tm_min), 2, then: ":")
        digits(Int(parts.tm_sec), 2, then: "Z")
        bytes.append(UInt8(ascii: "\""))
    }

    private func digits(_ number: Int, _ width: Int, then separator: Unicode.Scalar) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(number / divisor % 10))
            divisor /= 10
        }
        bytes.append(UInt8(ascii: separator))
    }

    func string(_ value: String) { WireJSON.appendString(value, to: &bytes) }

    // MARK: containers

    /// Starts a member of the object being written: its comma, its key, its colon.
    func member(_ key: some CodingKey) {
        guard case .object(let firstMember) = frame else {
            unsupported = true
            return
        }
        if members.count > firstMember { bytes.append(UInt8(ascii: ",")) }
        members.append(Member(start: bytes.count, key: key.stringValue))
        string(key.stringValue)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Starts an element of the array being written: its comma.
    func element() {
        guard case .array(let count) = frame else {
            unsupported = true
            return
        }
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        frame = .array(count: count + 1)
    }

    var elementCount: Int {
        if case .array(let count) = frame { count } else { 0 }
    }

    /// Starts the single value being written; a second one in the same place is unsupported.
    func single() {
        guard case .single(written: false) = frame else {
            unsupported = true
            return
        }
        frame = .single(written: true)
    }

    /// Closes an object, putting its members in the order of their keys' UTF-8 bytes as
    /// `.sortedKeys` does; a key written twice keeps its last value, as Foundation's does.
    private func closeObject(from firstMember: Int) {
        let written = firstMember..<members.count
        let inOrder = written.dropFirst().allSatisfy { precedes(members[$0 - 1].key, members[$0].key) }
        if !inOrder {
            // by key, and a repeated key's values in the order written, so that the last is kept
            order.removeAll(keepingCapacity: true)
            order.append(contentsOf: written)
            order.sort { precedes(members[$0].key, members[$1].key) || (same(members[$0].key, members[$1].key) && $0 < $1) }
            sorted.removeAll(keepingCapacity: true)
            for (position, index) in order.enumerated() {
                if position + 1 < order.count, same(members[order[position + 1]].key, members[index].key) { continue }
                if !sorted.isEmpty { sorted.append(UInt8(ascii: ",")) }
                let end = index + 1 < members.count ? members[index + 1].start - 1 : bytes.count
                sorted.append(contentsOf: bytes[members[index].start..<end])
            }
            bytes.replaceSubrange(members[firstMember].start..., with: sorted)
        }
        members.removeSubrange(written)
        bytes.append(UInt8(ascii: "}"))
    }

    private func precedes(_ key: String, _ other: String) -> Bool {
        key.utf8.lexicographicallyPrecedes(other.utf8)
    }

    private func same(_ key: String, _ other: String) -> Bool {
        key.utf8.elementsEqual(other.utf8)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch frame {
        case .nothing:
            bytes.append(UInt8(ascii: "{"))
            frame = .object(firstMember: members.count)
        case .object: break
        default: unsupported = true
        }
        return KeyedEncodingContainer(ObjectContainer(writer: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .nothing = frame {
            bytes.append(UInt8(ascii: "["))
            frame = .array(count: 0)
        } else if case .array = frame {
        } else {
            unsupported = true
        }
        return ValueContainer(writer: self, inArray: true)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        if case .nothing = frame { frame = .single(written: false) } else { unsupported = true }
        return ValueContainer(writer: self, inArray: false)
    }

    /// Where a container nested in another was asked for: the value goes to `encoder()`.
    func nested() -> WireJSONWriter {
        unsupported = true
        return WireJSONWriter()
    }
}
