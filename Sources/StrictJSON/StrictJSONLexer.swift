extension StrictJSON {
    /// One piece of a document, in the order it is written.
    public enum Token: Equatable, Sendable {
        case objectStart, objectEnd, arrayStart, arrayEnd
        /// A member's name with its escapes resolved; `bytes` is where it stands, quotes included.
        case key(String, bytes: Range<Int>)
        /// A string, number, true, false or null; `bytes` is where it stands (a string's quotes
        /// included). A string's text is `Lexer.text(ofString:)`.
        case scalar(Kind, bytes: Range<Int>)
    }

    /// Reads a document token by token, as strictly as `scan`: `next()` gives each token in
    /// order, then nil once the document has ended with nothing after it. A reader takes what
    /// it needs on the way (`scan` its paths, the timeline's redaction the bytes it copies)
    /// instead of a tree built first. After a problem the lexer is spent.
    public struct Lexer {
        /// What the next token may be.
        private enum Expecting {
            case value
            case firstMember, firstElement
            /// A comma or the end of the innermost container, or, with none open, the end.
            case separator
            case finished
        }

        /// An open object or array, with what a key twice needs to be found and named.
        private struct Frame {
            let isObject: Bool
            /// Where its keys start in `keys` (past the keys of the objects around it).
            let firstKey: Int
            /// An object's keys once it has many, so that each new one is looked up at once.
            var keySet: Set<String>?
        }

        private var cursor: Cursor
        private var expecting = Expecting.value
        private var frames: [Frame] = []
        /// The keys of every open object, innermost last: a request's objects have a few each,
        /// which are compared faster than hashed (and need no set of their own).
        private var keys: [String] = []
        private static let keysComparedOneByOne = 16

        public init(_ bytes: some Collection<UInt8>) {
            cursor = Cursor(bytes: Array(bytes), index: 0)
        }

        public var bytes: [UInt8] { cursor.bytes }
        /// How many objects and arrays are open.
        public var depth: Int { frames.count }

        public mutating func next() throws(Problem) -> Token? {
            cursor.skipSpace()
            switch expecting {
            case .value:
                return try value()
            case .firstMember:
                return cursor.current == UInt8(ascii: "}") ? close() : try key()
            case .firstElement:
                return cursor.current == UInt8(ascii: "]") ? close() : try value()
            case .separator:
                guard let frame = frames.last else {
                    guard cursor.atEnd else { throw cursor.problem("there is more after the JSON value") }
                    expecting = .finished
                    return nil
                }
                let closing = frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                switch cursor.current {
                case closing:
                    return close()
                case UInt8(ascii: ","):
                    cursor.index += 1
                    cursor.skipSpace()
                    if cursor.current == closing { throw cursor.problem("a trailing comma before '\(Unicode.Scalar(closing))'") }
                    return frame.isObject ? try key() : try value()
                default:
                    throw cursor.problem("expected ',' or '\(Unicode.Scalar(closing))'")
                }
            case .finished:
                return nil
            }
        }

        /// Reads on to the end of the object or array whose start was the last token, checking it
        /// as strictly: for a reader that does not want what is inside.
        public mutating func skipContainer() throws(Problem) {
            let end = frames.count - 1
            while frames.count > end, try next() != nil {}
        }

        /// The text of the string at `bytes` (from a `.scalar(.string, bytes:)`), escapes resolved.
        public func text(ofString bytes: Range<Int>) throws(Problem) -> String {
            var string = Cursor(bytes: cursor.bytes, index: bytes.lowerBound)
            return try string.string(keeping: true)
        }

        private mutating func value() throws(Problem) -> Token {
            guard frames.count <= maximumDepth else { throw cursor.problem("the JSON nests deeper than \(maximumDepth) levels") }
            let start = cursor.index
            let kind: Kind
            switch cursor.current {
            case UInt8(ascii: "{"):
                return open(object: true)
            case UInt8(ascii: "["):
                return open(object: false)
            case UInt8(ascii: "\""):
                _ = try cursor.string(keeping: false)
                kind = .string
            case UInt8(ascii: "t"):
                try cursor.expect("true")
                kind = .bool
            case UInt8(ascii: "f"):
                try cursor.expect("false")
                kind = .bool
            case UInt8(ascii: "n"):
                try cursor.expect("null")
                kind = .null
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                try cursor.number()
                kind = .number
            case nil: throw cursor.problem("the JSON ends where a value should be")
            default: throw cursor.problem("expected a JSON value")
            }
            expecting = .separator
            return .scalar(kind, bytes: start..<cursor.index)
        }

        /// A member's key and the colon after it; a key its object already has is refused.
        private mutating func key() throws(Problem) -> Token {
            guard cursor.current == UInt8(ascii: "\"") else { throw cursor.problem("expected a key in quotes") }
            let start = cursor.index
            let name = try cursor.string(keeping: true)
            let end = cursor.index
            guard isNew(name) else {
                let object = innermostObjectPath
                throw Problem(message: "the key '\(name)' appears twice in \(object.isEmpty ? "the body" : "'\(object)'")")
            }
            keys.append(name)
            cursor.skipSpace()
            guard cursor.current == UInt8(ascii: ":") else { throw cursor.problem("expected ':' after the key '\(name)'") }
            cursor.index += 1
            expecting = .value
            return .key(name, bytes: start..<end)
        }

        /// Whether the innermost object does not have the key `name` yet.
        private mutating func isNew(_ name: String) -> Bool {
            let frame = frames.count - 1
            let own = keys[frames[frame].firstKey...]
            guard own.count >= Self.keysComparedOneByOne else { return !own.contains(name) }
            if frames[frame].keySet == nil { frames[frame].keySet = Set(own) }
            return frames[frame].keySet?.insert(name).inserted ?? true
        }

        private mutating func open(object: Bool) -> Token {
            cursor.index += 1
            frames.append(Frame(isObject: object, firstKey: keys.count))
            expecting = object ? .firstMember : .firstElement
            return object ? .objectStart : .arrayStart
        }

        private mutating func close() -> Token {
            cursor.index += 1
            expecting = .separator
            let frame = frames.removeLast()
            guard frame.isObject else { return .arrayEnd }
            keys.removeSubrange(frame.firstKey...)
            return .objectEnd
        }

        /// The innermost object's path, as `scan` writes paths; only a refusal needs it.
        private var innermostObjectPath: String {
            // a container's key in its object is that object's last when the container opened
            zip(frames, frames.dropFirst()).reduce("") { path, pair in
                guard pair.0.isObject else { return path + "[]" }
                let key = keys[pair.1.firstKey - 1]
                return path.isEmpty ? key : "\(path).\(key)"
            }
        }
    }
}
