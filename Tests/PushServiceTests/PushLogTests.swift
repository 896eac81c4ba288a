import Faults
import Foundation
import OutOfBand
import Synchronization
import TestDoubles
import Testing

@testable import PushService

/// The push log: every message received, from anyone, with what became of it; bounded, filtered,
/// and its outcome kept current as the phone opens a message.
@Suite struct PushLogTests {
    let clock = TestClock()
    let payload = OutOfBandPayload(redeemData: .init(token: "redeem-me", redeemURL: URL(string: "http://127.0.0.1:8080/api/backend/redeem")!))

    func makeService(
        on engine: TestEngine, rateLimit: Int = 30, logLimit: Int = 1000, faults: FaultInjector? = nil,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { _ in }
    ) async throws -> PushService {
        let clock = clock
        return PushService(
            store: try await engine.open(PushStore.self), configuration: .init(project: "demo", rateLimit: rateLimit, logLimit: logLimit),
            now: { clock.now() }, faults: faults, sleep: sleep)
    }

    /// `extra` goes into the message, `root` beside it.
    func body(to token: String, data: String? = nil, extra: String = "", root: String = "") -> [UInt8] {
        let payloadData = String(
            decoding: try! JSONSerialization.data(withJSONObject: PushMessage.data(for: payload), options: .sortedKeys), as: UTF8.self)
        return Array(#"{"message": {"token": "\#(token)", "data": \#(data ?? payloadData)\#(extra)}\#(root)}"#.utf8)
    }

    /// The outcome of one send, as the log has it.
    func sendAndLog(_ service: PushService, _ body: [UInt8], project: String = "demo") async throws -> PushLogEntry {
        _ = try? await service.send(project: project, body: body, sender: "10.0.0.7")
        return try #require(try await service.messages().first)
    }

    @Test(arguments: TestEngine.available) func everyOutcomeIsLoggedWithSenderTargetAndRequest(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine, rateLimit: 1)
        try await service.register(tokens: ["t1", "t2"])
        let waiting = try await sendAndLog(service, body(to: "t1"))
        #expect(waiting.outcome == .inbox)
        #expect(waiting.sender == "10.0.0.7")
        #expect(waiting.target == "t1")
        #expect(waiting.payloadToken == "redeem-me")
        #expect(waiting.request == String(decoding: body(to: "t1"), as: UTF8.self))
        #expect(waiting.name == "projects/demo/messages/\(waiting.id)")
        #expect(waiting.receivedAt == clock.now())
        #expect(try await sendAndLog(service, body(to: "t1")).outcome == .quotaExceeded)
        #expect(try await sendAndLog(service, body(to: "nobody")).outcome == .unregistered)
        #expect(try await sendAndLog(service, body(to: "t2"), project: "other").outcome == .senderIdMismatch)
        #expect(try await sendAndLog(service, body(to: "t2", root: #", "validate_only": true"#)).outcome == .validated)

        let refused = try await sendAndLog(service, body(to: "t2", extra: #", "topic": "news""#))
        #expect(refused.outcome == .invalidArgument)
        #expect(refused.target == "t2")
        #expect(refused.rule == .oneTarget)
        #expect(refused.error?.contains("Exactly one of token") == true)
        #expect(refused.name == nil)
        #expect(try await service.messages().count == 6)
    }

    @Test(arguments: TestEngine.available) func aScreenThatIsOpenGetsABannerAndOpeningUpdatesTheEntry(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        try await service.register(token: "t1")
        let screen = service.deliveries.subscribe("t1")
        let shown = try await sendAndLog(service, body(to: "t1"))
        #expect(shown.outcome == .banner)
        _ = try await service.take(token: "t1", id: shown.id)
        #expect(try await service.messages().map(\.outcome) == [.opened])
        withExtendedLifetime(screen) {}
    }

    @Test(arguments: TestEngine.available) func faultsOnDemandShowAsDroppedAndDelayed(on engine: TestEngine) async throws {
        let clock = clock
        let faults = FaultInjector(now: { clock.now() })
        // the delay lasts until the test ends it
        let (delay, endDelay) = AsyncStream<Void>.makeStream()
        let service = try await makeService(on: engine, faults: faults) { _ in for await _ in delay { return } }
        try await service.register(token: "t1")
        _ = try faults.add(target: .push, kind: .drop, count: 1, lifetime: 60)
        #expect(try await sendAndLog(service, body(to: "t1")).outcome == .dropped)
        _ = try faults.add(target: .push, kind: .delay(seconds: 5), count: 1, lifetime: 60)
        let delayed = try await sendAndLog(service, body(to: "t1"))
        #expect(delayed.outcome == .delayed)
        #expect(try await service.inbox(token: "t1").isEmpty)
        // the held-back message arrives, and its entry says where it went
        endDelay.yield()
        while try await service.inbox(token: "t1").isEmpty { await Task.yield() }
        #expect(try await service.messages().map(\.outcome) == [.inbox, .dropped])
    }

    @Test(arguments: TestEngine.available) func theLogKeepsItsNewestEntriesNewestFirst(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine, logLimit: 3)
        try await service.register(token: "t1")
        var names: [String] = []
        for index in 0..<5 {
            clock.advance(1)
            names.append(try await service.send(project: "demo", body: body(to: "t1", data: #"{"n": "\#(index)"}"#)).name)
        }
        #expect(try await service.messages().compactMap(\.name) == names.suffix(3).reversed())
    }

    @Test(arguments: TestEngine.available) func theLogIsTrimmedInBatchesNotAtEveryEntry(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine, rateLimit: 1000, logLimit: 3)
        try await service.register(token: "t1")
        for _ in 0..<130 { _ = try await service.send(project: "demo", body: body(to: "t1")) }
        // what is stored: the bound and at most a batch more
        let kept = try await service.store.readAll { try $0.fetchOne(Int.self, "SELECT count(*) FROM pushLog", []) } ?? 0
        #expect(kept >= 3 && kept < 3 + Int(PushStore.trimEvery), "\(kept) entries kept")
        // what a read shows: the newest three, whatever the filter and the limit asked
        #expect(try await service.messages(limit: 1000).count == 3)
        #expect(try await service.messages(to: ["t1"], outcome: .inbox, limit: 1000).count == 3)
    }

    @Test(arguments: TestEngine.available) func filtersByTargetAndOutcomeAndClears(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        try await service.register(tokens: ["t1", "t2"])
        for token in ["t1", "t2", "t1", "nobody"] { _ = try? await service.send(project: "demo", body: body(to: token)) }
        #expect(try await service.messages(to: ["t1"]).count == 2)
        #expect(try await service.messages(to: ["t1"], outcome: .inbox).count == 2)
        #expect(try await service.messages(to: ["t1", "t2"]).count == 3)
        #expect(try await service.messages(outcome: .unregistered).map(\.target) == ["nobody"])
        #expect(try await service.messages(limit: 1).count == 1)
        try await service.clearMessages()
        #expect(try await service.messages().isEmpty)
    }

    /// A request past the stored length keeps its first bytes and says so.
    @Test(arguments: TestEngine.available) func aHugeRequestIsStoredTruncated(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        let huge = body(to: "t1", data: #"{"k": "\#(String(repeating: "x", count: PushLogEntry.requestLimit))"}"#)
        let entry = try await sendAndLog(service, huge)
        #expect(entry.truncated)
        #expect(entry.request.utf8.count == PushLogEntry.requestLimit)
        #expect(entry.rule == .sizeLimit)
    }
}

/// A console's composer state is kept as sent; only the consoles saved last are kept.
@Suite struct ComposerStoreTests {
    @Test(arguments: TestEngine.available) func theConsolesSavedLastAreKept(on engine: TestEngine) async throws {
        let clock = TestClock()
        let service = PushService(store: try await engine.open(PushStore.self), now: { clock.now() })
        for index in 0...100 {
            clock.advance(1)
            try await service.saveComposerState(console: "c\(index)", json: #"{"templates": {}, "last": {"n": \#(index)}}"#)
        }
        #expect(try await service.composerState(console: "c0") == nil)
        #expect(try await service.composerState(console: "c1") == #"{"templates": {}, "last": {"n": 1}}"#)
        #expect(try await service.composerState(console: "c100") == #"{"templates": {}, "last": {"n": 100}}"#)
    }
}
