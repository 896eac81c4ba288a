import Logging
import PostgresNIO

/// A change one instance tells the others that share its database: what kind of row changed
/// and the row's id, nothing more (NOTIFY's payload is capped at 8,000 bytes, and the row is in
/// the table for whoever wants it).
public struct StoreNotice: Sendable, Equatable {
    public let topic: String
    public let id: String

    public init(_ topic: String, _ id: String) {
        self.topic = topic
        self.id = id
    }
}

/// What a store's listener hears.
public enum StoreHearing: Sendable, Equatable {
    /// Another instance committed this change.
    case changed(StoreNotice)
    /// The listener is (again) listening: notices sent while it was not (at start, across a lost
    /// connection or a restarted server) are gone, so whoever shows the store's rows reads them
    /// again from the tables.
    case listening
}

extension PostgresDatabase {
    /// The schema's channel: the stores of one part hear only each other.
    var channel: String { "authphone_" + schema }

    /// The notices the other instances' committed transactions announce on this schema, for as
    /// long as the stream is read. A lost connection is made again, and `.listening` says when.
    public func notices() -> AsyncStream<StoreHearing> {
        let (stream, continuation) = AsyncStream<StoreHearing>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        // holds the database, whose pool it listens through, for as long as it is read
        let listener = Task { [self] in
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            continuation.yield(.listening)
                            for try await notification in notifications {
                                if let notice = Self.notice(notification.payload, unlessFrom: instance) { continuation.yield(.changed(notice)) }
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    logger.notice(
                        "The store's change listener lost its connection; listening again", metadata: ["error": "\(String(reflecting: error))"])
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listener.cancel() }
        return stream
    }

    /// A payload as `announce` writes it (`INSTANCE TOPIC ID`), nil for this instance's own.
    static func notice(_ payload: String, unlessFrom instance: String) -> StoreNotice? {
        let parts = payload.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, parts[0] != instance else { return nil }
        return StoreNotice(String(parts[1]), String(parts[2]))
    }
}
