import BackendAPI
import Broadcast
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization

/// How many exchanges each session and each phone keeps (the newest).
public struct TimelineBounds: Sendable {
    public var perSession: Int
    public var perPhone: Int

    public init(perSession: Int = 200, perPhone: Int = 500) {
        self.perSession = perSession
        self.perPhone = perPhone
    }
}

/// Every exchange between the parts, per session and per phone. Recording only queues the raw
/// exchange (a lock and an append): redacting, storing and telling the pages happen in `run`,
/// off the request's way, in batches of whatever has queued up.
public final class Timeline: Sendable {
    let store: TimelineStore
    let bounds: TimelineBounds
    private let queue = Mutex(Queue())
    private let wakeup: AsyncStream<Void>.Continuation
    private let wakeups: AsyncStream<Void>
    /// Each exchange once stored, for live pages.
    public let hops = Broadcaster<Hop>(bufferSize: 256)

    /// Exchanges recorded and not yet written. Past `maximumQueued` (a writer that cannot keep
    /// up) the oldest go, counted, so memory stays bounded.
    struct Queue {
        var waiting: [WireExchange] = []
        var dropped = 0
    }
    static let maximumQueued = 10_000

    public init(store: TimelineStore, bounds: TimelineBounds = .init()) {
        self.store = store
        self.bounds = bounds
        (wakeups, wakeup) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues one exchange; returns at once.
    public func record(_ exchange: WireExchange) {
        queue.withLock { queue in
            if queue.waiting.count >= Self.maximumQueued {
                queue.waiting.removeFirst()
                queue.dropped += 1
            }
            queue.waiting.append(exchange)
        }
        wakeup.yield()
    }

    /// Exchanges lost because the writer fell behind.
    public var dropped: Int { queue.withLock { $0.dropped } }

    /// Writes what is queued, batch by batch, until the task is cancelled. A batch gathers for a
    /// moment first: under load one transaction then carries dozens of exchanges instead of one.
    public func run() async {
        for await _ in wakeups {
            try? await Task.sleep(for: Self.gathering)
            try? await writeQueued()
        }
    }
    static let gathering = Duration.milliseconds(50)

    /// Every exchange recorded so far gone (`POST /api/reset`).
    public func reset() async throws {
        queue.withLock { $0.waiting.removeAll() }
        try await store.erase()
    }

    /// Writes everything queued so far; the reads below call it first, so they see every
    /// exchange recorded before them. A `Hop` is built for the live pages only while one watches.
    public func writeQueued() async throws {
        let written = try await store.append(bounds: bounds) { [self] in
            queue.withLock { queue in
                defer { queue.waiting.removeAll(keepingCapacity: true) }
                return queue.waiting.map(Self.record)
            }
        }
        guard hops.subscriberCount > 0 else { return }
        for record in written { hops.send(Hop(record)) }
    }

    public func hops(sessionId: String) async throws -> [Hop] {
        try await writeQueued()
        return try await store.hops(sessionId: sessionId).map(Hop.init)
    }

    public func hops(phoneId: String, pushToken: String) async throws -> [Hop] {
        try await writeQueued()
        return try await store.hops(phoneId: phoneId, pushToken: pushToken).map(Hop.init)
    }

    /// The exchange as it is kept: bodies redacted; the session read off the path
    /// (`…/sessions/{id}/…`) or the redeem's answer (a refusal's too: the backend names the
    /// token's session, so a refused redeem is on its session's timeline); a send's message id
    /// off FCM's answer.
    static func record(_ exchange: WireExchange) -> HopRecord {
        let label = exchange.label
        let response = Redaction.keep(exchange.responseBody.map { Data(buffer: $0) }, fields: ["name", "sessionId"])
        let messageId = label.messageId ?? (label.to == .push ? response.fields["name"]?.split(separator: "/").last.map(String.init) : nil)
        return HopRecord(
            id: nil, at: exchange.startedAt, source: label.from.rawValue, target: label.to.rawValue, method: exchange.method,
            url: Redaction.url(exchange.url), status: exchange.status.map { Int($0) },
            durationMs: Double(exchange.duration.components.seconds) * 1000 + Double(exchange.duration.components.attoseconds) / 1e15,
            attempt: label.attempt, fault: label.fault, error: exchange.error,
            requestBody: Redaction.text(exchange.requestBody), responseBody: response.text,
            sessionId: label.sessionId ?? sessionId(inURL: exchange.url) ?? response.fields["sessionId"],
            phoneId: label.phoneId, pushToken: label.pushToken, messageId: messageId, automaticRule: label.automaticRule)
    }

    static func sessionId(inURL url: String) -> String? {
        guard let path = URLComponents(string: url)?.path else { return nil }
        let parts = path.split(separator: "/")
        guard let index = parts.firstIndex(of: Substring(BackendRoutes.Template.sessions)), index + 1 < parts.count else { return nil }
        return String(parts[index + 1])
    }
}

/// One exchange as the API serves it: who talked to whom, how it went, and the redacted bodies.
/// The push token is shortened like every other token.
public struct Hop: Codable, Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var from: String
    public var to: String
    public var method: String
    public var url: String
    /// nil: no answer.
    public var status: Int?
    public var durationMs: Double
    /// 1 for the first try, 2 for the first retry…
    public var attempt: Int
    public var fault: String?
    public var error: String?
    public var request: String?
    public var response: String?
    public var sessionId: String?
    public var phoneId: String?
    public var pushToken: String?
    public var messageId: String?
    /// The auto-answer rule whose answer caused the exchange.
    public var automaticRule: String?

    init(_ record: HopRecord) {
        id = record.id ?? 0
        at = record.at
        from = record.source
        to = record.target
        method = record.method
        url = record.url
        status = record.status
        durationMs = (record.durationMs * 1000).rounded() / 1000
        attempt = record.attempt
        fault = record.fault
        error = record.error
        request = record.requestBody
        response = record.responseBody
        sessionId = record.sessionId
        phoneId = record.phoneId
        pushToken = record.pushToken.map(Redaction.shorten)
        messageId = record.messageId
        automaticRule = record.automaticRule
    }
}
