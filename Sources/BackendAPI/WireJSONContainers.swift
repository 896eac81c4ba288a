import Foundation

/// The three containers of `WireJSONWriter`: each starts its member, element or value in the
/// writer and writes it there.
struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: WireJSONWriter
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        writer.member(key)
        writer.null()
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        writer.member(key)
        writer.bool(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        writer.member(key)
        writer.string(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        writer.member(key)
        try writer.float(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        writer.member(key)
        try writer.float(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        writer.member(key)
        writer.integer(value)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        writer.member(key)
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        writer.nested().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { writer.nested().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { writer.nested() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { writer.nested() }
}

struct ArrayContainer: UnkeyedEncodingContainer {
    let writer: WireJSONWriter
    var codingPath: [any CodingKey] { [] }
    var count: Int { writer.elementCount }

    mutating func encodeNil() throws {
        writer.element()
        writer.null()
    }
    mutating func encode(_ value: Bool) throws {
        writer.element()
        writer.bool(value)
    }
    mutating func encode(_ value: String) throws {
        writer.element()
        writer.string(value)
    }
    mutating func encode(_ value: Double) throws {
        writer.element()
        try writer.float(value)
    }
    mutating func encode(_ value: Float) throws {
        writer.element()
        try writer.float(value)
    }
    mutating func encode(_ value: Int) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: Int8) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: Int16) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: Int32) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: Int64) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt8) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt16) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt32) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt64) throws {
        writer.element()
        writer.integer(value)
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        writer.element()
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        writer.nested().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { writer.nested().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { writer.nested() }
}

struct SingleContainer: SingleValueEncodingContainer {
    let writer: WireJSONWriter
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {
        writer.single()
        writer.null()
    }
    mutating func encode(_ value: Bool) throws {
        writer.single()
        writer.bool(value)
    }
    mutating func encode(_ value: String) throws {
        writer.single()
        writer.string(value)
    }
    mutating func encode(_ value: Double) throws {
        writer.single()
        try writer.float(value)
    }
    mutating func encode(_ value: Float) throws {
        writer.single()
        try writer.float(value)
    }
    mutating func encode(_ value: Int) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: Int8) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: Int16) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: Int32) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: Int64) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt8) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt16) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt32) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt64) throws {
        writer.single()
        writer.integer(value)
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        writer.single()
        try writer.write(value)
    }
}
