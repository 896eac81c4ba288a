import Foundation
import Phone
import Synchronization
import Testing

@testable import WebApp

/// The event stream's journal, filters and request, without a server: numbering, the ring,
/// resuming after an id, the gap when the id is older than what is kept, and the refusals.
@Suite struct EventJournalTests {
    /// A journal of `capacity` holding events 1…count, alternating between two phones.
    static func journal(capacity: Int, count: Int) -> EventJournal<Int> {
        var journal = EventJournal<Int>(capacity: capacity)
        for n in 1...count {
            let topic = EventTopic(kind: n.isMultiple(of: 3) ? .flowEnded : .interaction, phone: n.isMultiple(of: 2) ? "even" : "odd")
            #expect(journal.append(topic, n).id == UInt64(n))
        }
        return journal
    }

    @Test func numbersFromOneAndKeepsTheNewest() {
        let journal = Self.journal(capacity: 4, count: 10)
        #expect(journal.lastID == 10)
        #expect(journal.oldestID == 7)
        #expect(EventJournal<Int>(capacity: 4).oldestID == 1)
    }

    @Test func replaysWhatCameAfterTheLastIdSeen() {
        let journal = Self.journal(capacity: 4, count: 10)
        let replay = journal.replay(after: 7, EventFilter())
        #expect(replay.gap == nil)
        #expect(replay.entries.map(\.payload) == [8, 9, 10])
        // the oldest kept one's predecessor is no gap: nothing after it is lost
        #expect(journal.replay(after: 6, EventFilter()).gap == nil)
        #expect(journal.replay(after: 6, EventFilter()).entries.map(\.id) == [7, 8, 9, 10])
        #expect(journal.replay(after: 10, EventFilter()).entries.isEmpty)
    }

    @Test func aResumeFromBeforeTheOldestKeptStartsWithAGap() {
        let journal = Self.journal(capacity: 4, count: 10)
        let replay = journal.replay(after: 2, EventFilter())
        #expect(replay.gap == 7)
        #expect(replay.entries.map(\.id) == [7, 8, 9, 10])
    }

    /// An id later than any given (the server started again since): all that is kept, after a gap.
    @Test func anIdFromAnotherRunIsAGap() {
        let journal = Self.journal(capacity: 4, count: 3)
        let replay = journal.replay(after: UInt64.max, EventFilter())
        #expect(replay.gap == 1)
        #expect(replay.entries.map(\.id) == [1, 2, 3])
        #expect(EventJournal<Int>(capacity: 4).replay(after: 5, EventFilter()).gap == 1)
    }

    @Test func aReplayKeepsOnlyWhatTheFilterAdmits() {
        let journal = Self.journal(capacity: 8, count: 8)
        #expect(journal.replay(after: 0, EventFilter(phones: ["even"])).entries.map(\.id) == [2, 4, 6, 8])
        #expect(journal.replay(after: 0, EventFilter(kinds: [.flowEnded])).entries.map(\.id) == [3, 6])
        #expect(journal.replay(after: 0, EventFilter(phones: ["even"], kinds: [.flowEnded])).entries.map(\.id) == [6])
    }

    @Test func filtersAdmitWhatAllTheirSetsName() {
        let flow = EventTopic(kind: .interaction, phone: "p1", session: "s1")
        let session = EventTopic(kind: .session, session: "s1")
        #expect(EventFilter().admits(flow))
        #expect(EventFilter(sessions: ["s1"]).admits(flow) && EventFilter(sessions: ["s1"]).admits(session))
        #expect(!EventFilter(phones: ["p1"]).admits(session))
        #expect(!EventFilter(phones: ["p2"]).admits(flow))
        #expect(!EventFilter(phones: ["p1"], kinds: [.push]).admits(flow))
    }

    static func parse(_ query: String, header: String? = nil) throws(APIError) -> EventRequest {
        try EventRequest.parse(query: URLComponents(string: "?" + query)?.queryItems ?? [], lastEventID: header)
    }

    @Test func filtersRepeatOrListWithCommas() throws {
        let request = try Self.parse("phone=a,b&phone=c&kind=push,session&session=s&key=K&lastEventId=7")
        #expect(request.filter == EventFilter(phones: ["a", "b", "c"], sessions: ["s"], kinds: [.push, .session]))
        #expect(request.after == 7)
        #expect(try Self.parse("lastEventId=7", header: "9").after == 9)
        #expect(try Self.parse("").after == nil)
    }

    @Test(arguments: [
        ("kind=nope", nil, "UNKNOWN_EVENT_KIND"), ("phones=a", nil, "UNKNOWN_PARAMETER"), ("phone=", nil, "INVALID_FILTER"),
        ("phone=a,,b", nil, "INVALID_FILTER"), ("", "-1", "INVALID_LAST_EVENT_ID"), ("", "1e3", "INVALID_LAST_EVENT_ID"),
        ("", "", "INVALID_LAST_EVENT_ID"), ("", "18446744073709551616", "INVALID_LAST_EVENT_ID"),
        ("", String(repeating: "9", count: 10_000), "INVALID_LAST_EVENT_ID"), ("lastEventId=x", nil, "INVALID_LAST_EVENT_ID"),
        ("phone=" + (1...65).map(String.init).joined(separator: ","), nil, "FILTER_TOO_LONG"),
        ((1...10_000).map { "session=\($0)" }.joined(separator: "&"), nil, "FILTER_TOO_LONG"),
    ])
    func refusals(query: String, header: String?, code: String) {
        let error = #expect(throws: APIError.self) { try Self.parse(query, header: header) }
        #expect(error?.code == code && error?.status == .badRequest)
    }

    @Test func theLargestIdIsAnId() throws {
        #expect(try Self.parse("", header: "18446744073709551615").after == UInt64.max)
    }

    /// The hub hands each open stream the events after its replay, none twice, and forgets a
    /// stream once its subscription is cancelled; past its limit it refuses to open another.
    @Test func theHubStreamsOnFromTheReplayAndForgetsClosedStreams() throws {
        let hub = EventHub(history: 4, maxStreams: 1)
        let request = try JSONDecoder().decode(
            PrivacyIDEARequest.self,
            from: Data(#"{"kind": "CHALLENGE", "state": "WAIT_FOR_INPUT", "serial": "S", "label": "L", "issuer": "I", "origin": "http://pi"}"#.utf8))
        let shown = EventPayload.privacyIDEA(phone: "p", request)
        for _ in 1...3 { hub.publish(shown) }
        let got = Got()
        let (replay, subscription) = try hub.open(EventRequest(after: 1)) { got.add($0.id) }
        #expect(replay.entries.map(\.id) == [2, 3])
        hub.publish(shown)
        #expect(got.ids == [4])
        #expect(hub.openStreams == 1)
        #expect(throws: APIError.self) { try hub.open(EventRequest()) { _ in } }
        subscription.cancel()
        #expect(hub.openStreams == 0)
        hub.publish(shown)
        #expect(got.ids == [4])
    }

    final class Got: Sendable {
        private let seen = Mutex<[UInt64]>([])
        var ids: [UInt64] { seen.withLock { $0 } }
        func add(_ id: UInt64) { seen.withLock { $0.append(id) } }
    }
}
