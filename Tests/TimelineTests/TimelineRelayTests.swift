import BackendAPI
import Foundation
import TestDoubles
import Testing

@testable import Timeline

/// Several instances on one PostgreSQL: an exchange one instance records reaches the live
/// timeline open on another, and only through the other's notice.
@Suite struct TimelineRelayTests {
    @Test(.enabled(if: TestEngine.postgresURL != nil), .timeLimit(.minutes(1)))
    func anExchangeOneInstanceRecordsReachesALiveTimelineOnAnother() async throws {
        let store = try await TestEngine.postgres.open(TimelineStore.self)
        let (recording, watching) = (Timeline(store: store), Timeline(store: try await TestEngine.postgres.otherInstance(of: store)))
        var live = watching.hops.subscribe().makeAsyncIterator()
        let relay = Task { await watching.relayOtherInstancesHops() }
        defer { relay.cancel() }
        // notices sent before the relay listens are not heard: record until one is
        let recorder = Task {
            var attempt = 0
            while !Task.isCancelled {
                attempt += 1
                recording.record(Self.exchange(attempt))
                try await recording.writeQueued()
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { recorder.cancel() }
        let first = try #require(await live.next())
        let second = try #require(await live.next())
        #expect(first.url.hasPrefix(Self.url) && second.url.hasPrefix(Self.url))
        #expect(second.id > first.id, "each batch heard once, in order")
        #expect(watching.dropped == 0)
    }

    @Test func aLongBatchIsAnnouncedInNoticesThatEachFit() {
        let ids = (1...3000).map(Int64.init)
        let lists = TimelineStore.noticeLists(ids, limit: 100)
        #expect(lists.count > 1 && lists.allSatisfy { $0.utf8.count <= 100 })
        #expect(lists.joined(separator: ",") == ids.map(String.init).joined(separator: ","), "every id once, in order")
        #expect(TimelineStore.noticeLists([]) == [])
    }

    static let url = "http://127.0.0.1:8080/api/backend/sessions/"

    static func exchange(_ attempt: Int) -> WireExchange {
        WireExchange(
            label: .init(from: .phone, to: .backend, sessionId: "s\(attempt)"), method: "POST", url: url + "s\(attempt)/redeem",
            startedAt: Date(), duration: .milliseconds(3), requestBody: Data("{}".utf8), status: 200, responseBody: nil, error: nil)
    }
}
