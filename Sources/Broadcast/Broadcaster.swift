import Synchronization

/// Fans values out to any number of subscribers, each with a bounded buffer: a slow reader
/// (a stalled browser tab) loses its oldest values instead of making memory grow.
public final class Broadcaster<Element: Sendable>: Sendable {
    private let state = Mutex(State())
    private let bufferSize: Int

    private struct State {
        var nextID = 0
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
    }

    public init(bufferSize: Int = 64) {
        self.bufferSize = bufferSize
    }

    /// A stream of every value sent from now on; it ends when the consumer stops iterating.
    public func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    public func send(_ value: Element) {
        for continuation in state.withLock({ Array($0.subscribers.values) }) {
            continuation.yield(value)
        }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// One `Broadcaster` per key (per phone), so a value reaches only that key's subscribers and
/// sending costs nothing for the thousands of other keys.
public final class KeyedBroadcaster<Key: Hashable & Sendable, Element: Sendable>: Sendable {
    private let channels = Mutex<[Key: Broadcaster<Element>]>([:])
    private let bufferSize: Int

    public init(bufferSize: Int = 64) {
        self.bufferSize = bufferSize
    }

    public func subscribe(_ key: Key) -> AsyncStream<Element> {
        let size = bufferSize
        // Subscribing under the lock, so `send` cannot drop the channel as empty in between.
        return channels.withLock { channels in
            let channel = channels[key] ?? Broadcaster<Element>(bufferSize: size)
            channels[key] = channel
            return channel.subscribe()
        }
    }

    public func send(_ value: Element, to key: Key) {
        let channel = channels.withLock { channels -> Broadcaster<Element>? in
            guard let channel = channels[key] else { return nil }
            if channel.subscriberCount == 0 { channels.removeValue(forKey: key) }
            return channel
        }
        channel?.send(value)
    }
}
