/// A JSON value whose shape is open to its reader, decoded through `WireJSON.decoder()` and walked
/// by the reader itself: FCM's platform blocks (checked field by field so that a refusal names the
/// field as FCM does), APNs' payload, a data value a refusal quotes, a pasted push whose shape
/// shows only in the keys it has, and a recorded request's fields, written out again as they came.
public enum OpenJSON: Codable, Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([OpenJSON])
    case object([String: OpenJSON])

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        // the likeliest kinds first: each kind tried before the right one throws
        if value.decodeNil() {
            self = .null
        } else if let text = try? value.decode(String.self) {
            self = .string(text)
        } else if let members = try? value.decode([String: OpenJSON].self) {
            self = .object(members)
        } else if let flag = try? value.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? value.decode(Double.self) {
            self = .number(number)
        } else {
            self = .array(try value.decode([OpenJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        switch self {
        case .null: try value.encodeNil()
        case .bool(let flag): try value.encode(flag)
        case .number(let number): if let whole = Int64(exactly: number) { try value.encode(whole) } else { try value.encode(number) }
        case .string(let text): try value.encode(text)
        case .array(let items): try value.encode(items)
        case .object(let members): try value.encode(members)
        }
    }

    /// The value as JSON text, an object's keys sorted: `12`, `true`, `{"a":[1,"b"]}`.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let number): Int64(exactly: number).map(String.init) ?? "\(number)"
        case .string(let text): WireJSON.quoted(text)
        case .array(let items): "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { WireJSON.quoted($0.key) + ":" + $0.value.description }.joined(separator: ",") + "}"
        }
    }
}
