import Synchronization

/// Fans values out to any number of subscribers, each with a bounded buffer: a slow reader
/// (a stalled browser tab) loses its oldest values instead of making memory grow. A broadcaster
/// whose readers must act on every value, and only hand each on, keeps them all (`keepingEvery`).
public final class Broadcaster<Element: Sendable>: Sendable {
    private let state = Mutex(State())
    private let buffering: AsyncStream<Element>.Continuation.BufferingPolicy

    private struct State {
        var nextID = 0
        var subscribers: [Int: @Sendable (Element) -> Void] = [:]
    }

    public init(bufferSize: Int = 64) {
        buffering = .bufferingNewest(bufferSize)
    }

    private init(buffering: AsyncStream<Element>.Continuation.BufferingPolicy) {
        self.buffering = buffering
    }

    /// No value lost to any subscriber: for readers that must act on each (a push to open) and
    /// keep up by only handing it on. A slow page is not such a reader.
    public static func keepingEvery() -> Broadcaster { Broadcaster(buffering: .unbounded) }

    /// A stream of every value sent from now on; it ends when the consumer stops iterating.
    public func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: buffering)
        let subscription = forward { continuation.yield($0) }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    /// Hands every value sent from now on to `deliver`, on the sender's thread, until the
    /// subscription is cancelled: for a consumer that merges several sources into one stream of
    /// its own (a screen's connection), with no task per source.
    public func forward(_ deliver: @escaping @Sendable (Element) -> Void) -> Subscription {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = deliver
            return state.nextID
        }
        return Subscription { [weak self] in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
    }

    public func send(_ value: Element) {
        for deliver in state.withLock({ Array($0.subscribers.values) }) {
            deliver(value)
        }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// One `Broadcaster` per key (per phone), so a value reaches only that key's subscribers and
/// sending costs nothing for the thousands of other keys.
public final class KeyedBroadcaster<Key: Hashable & Sendable, Element: Sendable>: Sendable {
    private let channels = Mutex<[Key: Broadcaster<Element>]>([:])
    private let everyKey = Broadcaster<(key: Key, value: Element)>()
    private let bufferSize: Int

    public init(bufferSize: Int = 64) {
        self.bufferSize = bufferSize
    }

    public func subscribe(_ key: Key) -> AsyncStream<Element> {
        // Subscribing under the lock, so `send` cannot drop the channel as empty in between.
        channels.withLock { channel(key, in: &$0).subscribe() }
    }

    public func forward(_ key: Key, _ deliver: @escaping @Sendable (Element) -> Void) -> Subscription {
        channels.withLock { channel(key, in: &$0).forward(deliver) }
    }

    /// Hands every value sent for any key, with its key, to `deliver` on the sender's thread: for
    /// the few consumers that follow all keys at once (the server's event stream).
    public func forwardEvery(_ deliver: @escaping @Sendable (Key, Element) -> Void) -> Subscription {
        everyKey.forward { deliver($0.key, $0.value) }
    }

    private func channel(_ key: Key, in channels: inout [Key: Broadcaster<Element>]) -> Broadcaster<Element> {
        let channel = channels[key] ?? Broadcaster<Element>(bufferSize: bufferSize)
        channels[key] = channel
        return channel
    }

    /// The keys someone listens for now (the phones whose screens are open here).
    public var subscribedKeys: [Key] {
        channels.withLock { $0.filter { $0.value.subscriberCount > 0 }.map(\.key) }
    }

    /// Whether anyone listens for the key now (a phone's screen is open to show its pushes).
    public func hasSubscribers(_ key: Key) -> Bool {
        channels.withLock { ($0[key]?.subscriberCount ?? 0) > 0 }
    }

    public func send(_ value: Element, to key: Key) {
        let channel = channels.withLock { channels -> Broadcaster<Element>? in
            guard let channel = channels[key] else { return nil }
            if channel.subscriberCount == 0 { channels.removeValue(forKey: key) }
            return channel
        }
        channel?.send(value)
        everyKey.send((key, value))
    }
}

/// A forwarding subscription; it ends when cancelled or released.
public final class Subscription: Sendable {
    private let end: Mutex<(@Sendable () -> Void)?>

    init(_ end: @escaping @Sendable () -> Void) {
        self.end = Mutex(end)
    }

    public func cancel() {
        end.withLock { end in
            end?()
            end = nil
        }
    }

    deinit { cancel() }
}
