import Foundation

/// One JSON dialect for every party: ISO 8601 dates, sorted keys (stable output for tests and diffs).
public enum WireJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Any member's name, for an object whose members are not all known in advance: to list
    /// them (`allKeys`) and refuse those its type does not take.
    public struct MemberName: CodingKey, Hashable, Sendable {
        public let stringValue: String
        public var intValue: Int? { nil }
        public init(_ name: String) { stringValue = name }
        public init(stringValue: String) { self.init(stringValue) }
        public init?(intValue: Int) { nil }
    }

    /// A Swift type as JSON calls it.
    static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is [String: Any].Type: "an object"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "a value of another kind"
        }
    }

    /// Names the field and the problem instead of dumping the decoder's internals.
    public static func describe(_ error: Error) -> String {
        func path(_ codingPath: [CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "the field '\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)' is missing"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return "\(field.isEmpty ? "the body" : "the field '\(field)'") must be \(jsonKind(of: type))"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not valid JSON" : "the field '\(path(context.codingPath))' is invalid"
        default:
            return "it could not be read"
        }
    }
}
