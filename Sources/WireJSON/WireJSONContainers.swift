import Foundation

/// The containers of `WireJSONWriter`: each starts its member, element or value in the writer
/// and writes it there.
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

/// An array's next element, or a single value: the same writes, started differently.
struct ValueContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let writer: WireJSONWriter
    /// An element of an array (a comma before all but the first), or the one value of its place.
    let inArray: Bool
    var codingPath: [any CodingKey] { [] }
    var count: Int { writer.elementCount }

    private func start() { inArray ? writer.element() : writer.single() }

    mutating func encodeNil() throws {
        start()
        writer.null()
    }
    mutating func encode(_ value: Bool) throws {
        start()
        writer.bool(value)
    }
    mutating func encode(_ value: String) throws {
        start()
        writer.string(value)
    }
    mutating func encode(_ value: Double) throws {
        start()
        try writer.float(value)
    }
    mutating func encode(_ value: Float) throws {
        start()
        try writer.float(value)
    }
    mutating func encode(_ value: Int) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: Int8) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: Int16) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: Int32) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: Int64) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt8) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt16) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt32) throws {
        start()
        writer.integer(value)
    }
    mutating func encode(_ value: UInt64) throws {
        start()
        writer.integer(value)
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        start()
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        writer.nested().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { writer.nested().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { writer.nested() }
}
