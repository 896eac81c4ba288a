import Foundation

/// What an event of `/api/events` is (docs/protocol.md#events), its `event:` line.
enum EventKind: String, CaseIterable, Sendable {
    case interaction, flowEnded, flowUpdate, push, session, privacyIDEA, sms
}

/// What an event is about: all that a stream's filter looks at.
struct EventTopic: Equatable, Sendable {
    let kind: EventKind
    var phone: String?
    var session: String?
}

/// The events a stream asks for: each set empty (any) or naming what it wants; an event must
/// pass all three. An event about no phone (a session's) passes no phone filter.
struct EventFilter: Equatable, Sendable {
    var phones: Set<String> = []
    var sessions: Set<String> = []
    var kinds: Set<EventKind> = []

    func admits(_ topic: EventTopic) -> Bool {
        (kinds.isEmpty || kinds.contains(topic.kind)) && Self.admits(topic.phone, phones) && Self.admits(topic.session, sessions)
    }

    private static func admits(_ value: String?, _ named: Set<String>) -> Bool {
        named.isEmpty || value.map(named.contains) == true
    }
}

/// The most recent events, numbered across the whole server from 1, in a ring of fixed
/// size: a stream that comes back with the last id it saw is sent what it missed, or told
/// that some is gone. Pure, so numbering, filtering and resuming are tested without I/O.
struct EventJournal<Payload: Sendable>: Sendable {
    struct Entry: Sendable {
        let id: UInt64
        let topic: EventTopic
        let payload: Payload
    }

    /// What a resuming stream is sent before the live events.
    struct Replay: Sendable {
        /// The oldest id kept, when some events after the stream's last one are no longer kept
        /// (or its id is later than any given here: a server started again).
        var gap: UInt64?
        var entries: [Entry] = []
    }

    let capacity: Int
    /// The entry with id `n` is at `(n - 1) % capacity`.
    private var ring: [Entry] = []
    private(set) var lastID: UInt64 = 0

    init(capacity: Int) {
        precondition(capacity > 0, "an event journal keeps at least one event")
        self.capacity = capacity
    }

    /// The oldest id kept; one past `lastID` while nothing is.
    var oldestID: UInt64 { lastID - UInt64(ring.count) + 1 }

    mutating func append(_ topic: EventTopic, _ payload: Payload) -> Entry {
        lastID += 1
        let entry = Entry(id: lastID, topic: topic, payload: payload)
        if ring.count < capacity { ring.append(entry) } else { ring[slot(lastID)] = entry }
        return entry
    }

    /// The kept entries after `after` that `filter` admits, oldest first.
    func replay(after: UInt64, _ filter: EventFilter) -> Replay {
        let lost = after < oldestID - 1 || after > lastID
        let first = lost ? oldestID : after + 1
        let entries = first > lastID ? [] : (first...lastID).map { ring[slot($0)] }.filter { filter.admits($0.topic) }
        return Replay(gap: lost ? oldestID : nil, entries: entries)
    }

    private func slot(_ id: UInt64) -> Int { Int((id - 1) % UInt64(capacity)) }
}

/// A stream's request as its query and `Last-Event-ID` give it: the filter, and the id to resume
/// after. Filters may repeat or list values with commas; a request that names too much, an
/// unknown kind or parameter, or an id that is not a decimal number is refused.
struct EventRequest: Equatable, Sendable {
    var filter = EventFilter()
    var after: UInt64?

    /// The most phone and session ids one stream may name: each is looked up before it starts.
    static let maxNamed = 64
    static let lastEventIDParameter = "lastEventId"

    /// `lastEventID` is the header, which an EventSource sends on its own reconnects and which
    /// so wins over the query's (the URL it first opened).
    static func parse(query: [URLQueryItem], lastEventID: String?) throws(APIError) -> EventRequest {
        var request = EventRequest()
        var queryID: String?
        for item in query {
            let values = (item.value ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            switch item.name {
            case "phone": request.filter.phones.formUnion(try named(values, item.name))
            case "session": request.filter.sessions.formUnion(try named(values, item.name))
            case "kind": request.filter.kinds.formUnion(try kinds(values))
            case lastEventIDParameter: queryID = item.value ?? ""
            case Doors.keyParameter: continue
            default:
                throw APIError(
                    .badRequest, "UNKNOWN_PARAMETER", "the event stream takes phone, session, kind and \(lastEventIDParameter), not '\(item.name)'")
            }
        }
        guard request.filter.phones.count + request.filter.sessions.count <= maxNamed else {
            throw APIError(.badRequest, "FILTER_TOO_LONG", "a stream names at most \(maxNamed) phones and sessions together")
        }
        request.after = try (lastEventID ?? queryID).map(eventID)
        return request
    }

    private static func named(_ values: [String], _ name: String) throws(APIError) -> [String] {
        guard values.allSatisfy({ !$0.isEmpty }) else { throw APIError(.badRequest, "INVALID_FILTER", "a \(name) filter names nothing") }
        return values
    }

    private static func kinds(_ values: [String]) throws(APIError) -> [EventKind] {
        try values.map { value throws(APIError) in
            guard let kind = EventKind(rawValue: value) else {
                let known = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError(.badRequest, "UNKNOWN_EVENT_KIND", "'\(value.prefix(40))' is not a kind of event (\(known))")
            }
            return kind
        }
    }

    /// A decimal event id, as this server numbers them (at most 20 digits, a UInt64).
    private static func eventID(_ text: String) throws(APIError) -> UInt64 {
        guard text.utf8.count <= 20, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let id = UInt64(text)
        else {
            throw APIError(.badRequest, "INVALID_LAST_EVENT_ID", "Last-Event-ID must be an event id this server sent (a decimal number)")
        }
        return id
    }
}
