import Foundation

/// Decoding that notes every field the type asks for, named as `StrictJSON.scan` names paths
/// (`retryPolicy.type`, `items[]`): what a route takes is what its type reads, a field sent as
/// null included, without writing the value out again (which drops a nil optional's key, and
/// would copy a PIN). It wraps the decoder's own containers, so values, dates and errors are
/// the decoder's.
enum FieldRecording {
    static func decode<T: Decodable>(_ type: T.Type, from body: Data, with decoder: JSONDecoder) throws -> (value: T, fields: Set<String>) {
        let log = FieldLog()
        decoder.userInfo[FieldLog.key] = log
        let value = try decoder.decode(Recorded<T>.self, from: body).value
        return (value, log.paths)
    }
}

/// The paths asked for so far, and the path of the value `Recorded` reads next. One decode's
/// own, which runs on one thread from start to end.
private final class FieldLog: @unchecked Sendable {
    static let key = CodingUserInfoKey(rawValue: "FieldRecording")!
    var paths: Set<String> = []
    var next = ""

    /// A value without fields of its own, which the wrapped decoder reads whole in its own way
    /// (dates as ISO 8601, data as base64).
    static func isLeaf<T>(_ type: T.Type) -> Bool {
        type == String.self || type == Bool.self || type is any FixedWidthInteger.Type || type is any BinaryFloatingPoint.Type
            || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
    }
}

/// A value the wrapped decoder hands over as it does any other (a container of its own,
/// `codingPath` and all), read with a `RecordingDecoder` around that.
private struct Recorded<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        guard let log = decoder.userInfo[FieldLog.key] as? FieldLog else { preconditionFailure("decoded only by FieldRecording.decode") }
        value = try Value(from: RecordingDecoder(base: decoder, path: log.next, log: log))
    }
}

private struct RecordingDecoder: Decoder {
    let base: any Decoder
    let path: String
    let log: FieldLog

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingObject(base: try base.container(keyedBy: type), path: path, log: log))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        RecordingArray(base: try base.unkeyedContainer(), elements: path + "[]", log: log)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingValue(base: try base.singleValueContainer(), path: path, log: log)
    }
}

/// An object's fields: each one asked about (read, tested for null, or looked for) is noted.
private struct RecordingObject<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let path: String
    let log: FieldLog

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    /// Notes the field's path and returns it.
    @discardableResult private func note(_ key: Key) -> String { note(key.stringValue) }

    @discardableResult private func note(_ name: String) -> String {
        let field = path.isEmpty ? name : "\(path).\(name)"
        log.paths.insert(field)
        return field
    }

    private func field<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        let field = note(key)
        if FieldLog.isLeaf(type) { return try base.decode(type, forKey: key) }
        log.next = field
        return try base.decode(Recorded<T>.self, forKey: key).value
    }

    func contains(_ key: Key) -> Bool {
        note(key)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        note(key)
        return try base.decodeNil(forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try field(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try field(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try field(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try field(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try field(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try field(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try field(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try field(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try field(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try field(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try field(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try field(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try field(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try field(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try field(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(RecordingObject<NestedKey>(base: try base.nestedContainer(keyedBy: type, forKey: key), path: note(key), log: log))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        RecordingArray(base: try base.nestedUnkeyedContainer(forKey: key), elements: note(key) + "[]", log: log)
    }

    func superDecoder() throws -> any Decoder {
        RecordingDecoder(base: try base.superDecoder(), path: note("super"), log: log)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        RecordingDecoder(base: try base.superDecoder(forKey: key), path: note(key), log: log)
    }
}

/// A list's elements, which share one path.
private struct RecordingArray: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer
    let elements: String
    let log: FieldLog

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    private mutating func element<T: Decodable>(_ type: T.Type) throws -> T {
        log.paths.insert(elements)
        if FieldLog.isLeaf(type) { return try base.decode(type) }
        log.next = elements
        return try base.decode(Recorded<T>.self).value
    }

    mutating func decodeNil() throws -> Bool {
        log.paths.insert(elements)
        return try base.decodeNil()
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try element(type) }
    mutating func decode(_ type: String.Type) throws -> String { try element(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try element(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try element(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try element(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try element(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try element(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try element(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try element(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try element(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try element(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try element(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try element(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try element(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        log.paths.insert(elements)
        return KeyedDecodingContainer(RecordingObject<NestedKey>(base: try base.nestedContainer(keyedBy: type), path: elements, log: log))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        log.paths.insert(elements)
        return RecordingArray(base: try base.nestedUnkeyedContainer(), elements: elements + "[]", log: log)
    }

    mutating func superDecoder() throws -> any Decoder {
        log.paths.insert(elements)
        return RecordingDecoder(base: try base.superDecoder(), path: elements, log: log)
    }
}

/// A value with no fields of its own, or one whose type reads it whole (its path was noted
/// where it was asked for).
private struct RecordingValue: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    let path: String
    let log: FieldLog

    var codingPath: [any CodingKey] { base.codingPath }

    private func value<T: Decodable>(_ type: T.Type) throws -> T {
        if FieldLog.isLeaf(type) { return try base.decode(type) }
        log.next = path
        return try base.decode(Recorded<T>.self).value
    }

    func decodeNil() -> Bool { base.decodeNil() }
    func decode(_ type: Bool.Type) throws -> Bool { try value(type) }
    func decode(_ type: String.Type) throws -> String { try value(type) }
    func decode(_ type: Double.Type) throws -> Double { try value(type) }
    func decode(_ type: Float.Type) throws -> Float { try value(type) }
    func decode(_ type: Int.Type) throws -> Int { try value(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try value(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try value(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try value(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try value(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try value(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try value(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try value(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try value(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }
}
