/// Reads JSON exactly as RFC 8259 writes it, which Foundation's parsers do not insist on: a key
/// twice in one object (which value counts?), a trailing comma, a comment, nesting past a
/// limit, a control character in a string are all refused with where and what. `Lexer` gives a
/// document token by token; `scan` lets a caller refuse what its type does not know: every key
/// path with the kind of its value.
public enum StrictJSON {
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// Why the bytes are not strict JSON, in words a person can act on.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Deeper than this is no request anyone means to send.
    public static let maximumDepth = 32

    /// Every value's path (`message.data.nma_data`, `penalties[]`; `` for the root) and kind. An
    /// array's elements share one path; a path's kind is the last one seen.
    public static func scan(_ bytes: some Collection<UInt8>) throws(Problem) -> [String: Kind] {
        var kinds: [String: Kind] = [:]
        try walk(bytes, key: { _, _ in }, value: { path, kind in kinds[path] = kind })
        return kinds
    }

    /// The keys of the object at `path` (as `scan` names paths), in the document's order, which a
    /// dictionary forgets: FCM names a map's entries by their place in the request.
    public static func keys(at path: String, in bytes: some Collection<UInt8>) throws(Problem) -> [String] {
        var keys: [String] = []
        try walk(bytes, key: { object, name in if object == path { keys.append(name) } }, value: { _, _ in })
        return keys
    }

    /// Reads the document, telling `key` each key with its object's path and `value` each value's path and kind.
    private static func walk(
        _ bytes: some Collection<UInt8>, key: (String, String) -> Void, value: (String, Kind) -> Void
    ) throws(Problem) {
        var lexer = Lexer(bytes)
        // for each open container the path its values extend: an object's own, an array's elements'
        var open: [String] = []
        var path = ""
        while let token = try lexer.next() {
            switch token {
            case .key(let name, _):
                let object = open.last ?? ""
                key(object, name)
                path = object.isEmpty ? name : "\(object).\(name)"
            case .objectStart:
                value(path, .object)
                open.append(path)
            case .arrayStart:
                value(path, .array)
                path += "[]"
                open.append(path)
            case .objectEnd, .arrayEnd:
                open.removeLast()
                // in an array the next value is another element; in an object a key comes first
                path = open.last ?? ""
            case .scalar(let kind, _):
                value(path, kind)
            }
        }
    }
}
