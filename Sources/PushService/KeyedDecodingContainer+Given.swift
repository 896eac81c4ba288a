extension KeyedDecodingContainer {
    /// The field's value, nil when it is left out; unlike `decodeIfPresent`'s, a null is a value
    /// of the wrong type, as the fixed fields of an FCM message and a JWT's claims take it.
    func given<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        contains(key) ? try decode(type, forKey: key) : nil
    }
}
