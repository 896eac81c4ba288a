import Foundation
import Logging
import Synchronization

/// `--log-format json`: one JSON object a line, for log shippers. The time, level, logger label
/// and message come first; each metadata field is a key of its own beside them (a field named
/// like one of those four is kept under `metadata` instead).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (String) -> Void

    /// `write` takes each line, newline included; it defaults to standard error, one line at a time.
    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let core: [String: Any] = [
            "time": Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)),
            "level": event.level.rawValue, "logger": label, "message": event.message.description,
        ]
        var object = core
        var clashing: [String: Any] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            if core[key] == nil { object[key] = Self.json(value) } else { clashing[key] = Self.json(value) }
        }
        if !clashing.isEmpty { object["metadata"] = clashing }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return
        }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(json)
        case .dictionary(let fields): fields.mapValues(json)
        }
    }

    private static let standardErrorLock = Mutex(())

    public static let standardError: @Sendable (String) -> Void = { line in
        standardErrorLock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }
}
