import Hummingbird

/// A one-field answer whose field is always there, `null` when it holds nothing
/// (`{"flow": null}`), where the JSON dialect otherwise leaves out what is absent.
struct NullableAnswer<Value: Encodable & Sendable>: ResponseEncodable {
    let field: String
    let value: Value?

    private struct Field: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Field.self)
        try container.encode(value, forKey: Field(stringValue: field))
    }
}
