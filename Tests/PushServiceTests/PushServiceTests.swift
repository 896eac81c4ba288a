import Foundation
import GRDB
import OutOfBand
import PushService
import TestDoubles
import Testing

@Suite struct FCMSendRequestTests {
    static let token = "dev1:APA91bXYZ"

    static func body(_ message: String, extra: String = "") -> [UInt8] {
        Array(#"{"message": \#(message)\#(extra)}"#.utf8)
    }

    @Test func aValidRequestParses() throws {
        let request = try FCMSendRequest.parse(
            Self.body(
                #"{"token": "\#(Self.token)", "data": {"nma_data": "{}", "k": "v"}, "notification": {"title": "T", "body": "B"}, "android": {"priority": "HIGH"}}"#,
                extra: #", "validate_only": true"#))
        #expect(request.target == .token(Self.token))
        #expect(request.message.data == ["nma_data": "{}", "k": "v"])
        #expect(request.message.notification == .init(title: "T", body: "B"))
        #expect(request.validateOnly)
    }

    static let refused: [(String, String)] = [
        ("not json", "Invalid JSON"),
        (#"{"message": []}"#, "'message'"),
        (#"{"message": {"data": {}}}"#, "Exactly one"),
        (#"{"message": {"token": "t", "topic": "news"}}"#, "Exactly one"),
        (#"{"message": {"topic": "news"}}"#, "Topics"),
        (#"{"message": {"condition": "'a' in topics"}}"#, "Topics"),
        (#"{"message": {"token": 5}}"#, "message.token"),
        (#"{"message": {"token": "t", "data": {"n": 12}}}"#, "message.data[0].value"),
        // an entry's place in the request, not in the keys' sorted order
        (#"{"message": {"token": "t", "data": {"zeta": "x", "alpha": 5}}}"#, "message.data[1].value"),
        (#"{"message": {"token": "t", "data": {"from": "x"}}}"#, "reserved"),
        (#"{"message": {"token": "t", "data": {"google.x": "x"}}}"#, "reserved"),
        (#"{"message": {"token": "t", "data": {"gcm.notification.title": "x"}}}"#, "reserved"),
        (#"{"message": {"token": "t", "bogus": 1}}"#, "Unknown name"),
        (#"{"message": {"token": "t"}, "other": 1}"#, "Unknown name"),
        (#"{"message": {"token": "t"}, "validate_only": "yes"}"#, "validate_only"),
        (#"{"message": {"token": "t", "notification": {"title": 1}}}"#, "notification.title"),
        (#"{"message": {"token": "t", "notification": {"image": 5}}}"#, "'message.notification.image' (TYPE_STRING)"),
        (#"{"message": {"token": "t", "notification": []}}"#, "'message.notification' (Notification)"),
        (#"{"message": {"token": "t", "notification": {"sound": "x"}}}"#, #"Unknown name "sound" at 'message.notification'"#),
        (#"{"message": {"token": "t", "data": null}}"#, "'message.data' (Map)"),
        (#"{"message": {"token": "t", "data": {"n": true}}}"#, "'message.data[0].value' (TYPE_STRING), true"),
        (#"{"message": {"token": "t", "data": {"n": {"a": [1.5]}}}}"#, #"'message.data[0].value' (TYPE_STRING), {"a":[1.5]}"#),
        // the first entry that breaks a rule, in the request's order
        (#"{"message": {"token": "t", "data": {"gcm.x": "x", "n": 5}}}"#, "'gcm.x' is reserved"),
        (#"{"message": {"token": null}}"#, "'message.token' (TYPE_STRING)"),
        (#"{"message": {"token": "t"}, "validate_only": 1}"#, "'validate_only' (TYPE_BOOL)"),
        (#"{"message": {"token": "t"}, "validateOnly": null}"#, "'validateOnly' (TYPE_BOOL)"),
        (#"{"message": {"token": "t"}, "message": {"token": "u"}}"#, "the key 'message' appears twice"),
        ("[]", "Invalid JSON payload received."),
    ]

    /// A refused message is logged with the target it names, read leniently.
    @Test func theTargetOfARefusedMessageIsRead() {
        #expect(FCMSendRequest.target(in: Array(#"{"message": {"topic": "news", "data": {"n": 5}}, "x": 1}"#.utf8)) == "news")
        #expect(FCMSendRequest.target(in: Array(#"{"message": {"token": 5, "fid": "f"}}"#.utf8)) == "f")
        #expect(FCMSendRequest.target(in: Array(#"{"message": []}"#.utf8)) == nil)
        #expect(FCMSendRequest.target(in: Array("not json".utf8)) == nil)
    }

    @Test(arguments: refused)
    func invalidRequestsAreInvalidArgument(_ body: String, _ mentions: String) {
        do {
            _ = try FCMSendRequest.parse(Array(body.utf8))
            Issue.record("accepted: \(body)")
        } catch {
            #expect(error.code == 400)
            #expect(error.errorCode == "INVALID_ARGUMENT")
            #expect(error.message.contains(mentions), "\(error.message)")
        }
    }

    /// The four rules a sender most often breaks are named in the refusal, as FCM's BadRequest detail.
    @Test(arguments: [
        (#"{"message": {"token": "t", "topic": "news"}}"#, FCMRule.oneTarget),
        (#"{"message": {"token": "t", "data": {"n": 12}}}"#, .stringValues),
        (#"{"message": {"token": "t", "data": {"google.x": "x"}}}"#, .reservedKeys),
        (#"{"message": {"token": "t", "data": {"k": "\#(String(repeating: "a", count: 4096))"}}}"#, .sizeLimit),
    ])
    func aBrokenRuleIsNamed(_ body: String, _ rule: FCMRule) throws {
        let error = try #require(throws: FCMError.self) { try FCMSendRequest.parse(Array(body.utf8)) }
        #expect(error.rule == rule)
        let details = error.body.error.details
        #expect(details.first?.errorCode == "INVALID_ARGUMENT")
        let violations = details.last?.fieldViolations ?? []
        #expect(violations.map(\.field) == [rule.field])
        #expect(violations.map(\.description) == [rule.description])
    }

    @Test(arguments: TestEngine.available) func theDataLimitIs4096Bytes(on engine: TestEngine) async throws {
        let fits = String(repeating: "a", count: 4096 - 1)
        _ = try FCMSendRequest.parse(Self.body(#"{"token": "t", "data": {"k": "\#(fits)"}}"#))
        #expect(throws: FCMError.self) {
            try FCMSendRequest.parse(Self.body(#"{"token": "t", "data": {"k": "\#(fits)x"}}"#))
        }
    }
}

@Suite struct PushServiceTests {
    let clock = TestClock()
    let payload = OutOfBandPayload(redeemData: .init(token: "tok", redeemURL: URL(string: "http://127.0.0.1:8080/api/backend/redeem")!))

    func makeService(on engine: TestEngine, rateLimit: Int = 30) async throws -> PushService {
        let clock = clock
        return PushService(
            store: try await engine.open(PushStore.self), configuration: .init(project: "demo", rateLimit: rateLimit), now: { clock.now() })
    }

    func send(_ service: PushService, to token: String, project: String = "demo", validateOnly: Bool = false) async throws(FCMError) -> String {
        let data = try! JSONSerialization.data(withJSONObject: PushMessage.data(for: payload))
        let body =
            #"{"message": {"token": "\#(token)", "data": \#(String(decoding: data, as: UTF8.self)), "notification": {"title": "Log in?", "body": "b"}}, "validate_only": \#(validateOnly)}"#
        return try await service.send(project: project, body: Array(body.utf8)).name
    }

    @Test(arguments: TestEngine.available) func aMessageWaitsInTheInboxAndCarriesThePayload(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        try await service.register(token: "t1")
        let name = try await send(service, to: "t1")
        #expect(name.hasPrefix("projects/demo/messages/"))
        let inbox = try await service.inbox(token: "t1")
        #expect(inbox.count == 1)
        #expect(inbox[0].name == name)
        #expect(inbox[0].message.notification?.title == "Log in?")
        #expect(try inbox[0].message.payload() == payload)
        #expect(try await service.take(token: "t1", id: inbox[0].id) == inbox[0])
        #expect(try await service.inbox(token: "t1").isEmpty)
    }

    @Test(arguments: TestEngine.available) func unknownAndRetiredTokensAreUnregistered(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        await #expect(throws: FCMError.unregistered("nobody")) { try await send(service, to: "nobody") }
        try await service.register(token: "t1")
        try await service.retire(token: "t1")
        do {
            _ = try await send(service, to: "t1")
            Issue.record("a retired token was accepted")
        } catch {
            #expect(error.code == 404)
            #expect(error.errorCode == "UNREGISTERED")
        }
    }

    @Test(arguments: TestEngine.available) func anotherProjectIsASenderIdMismatch(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        try await service.register(token: "t1")
        await #expect(throws: FCMError.senderIdMismatch("other")) { try await send(service, to: "t1", project: "other") }
        #expect(try await service.inbox(token: "t1").isEmpty)
    }

    @Test(arguments: TestEngine.available) func validateOnlyDeliversNothing(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        try await service.register(token: "t1")
        _ = try await send(service, to: "t1", validateOnly: true)
        #expect(try await service.inbox(token: "t1").isEmpty)
    }

    @Test(arguments: TestEngine.available) func pushBombingIsThrottledPerToken(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine, rateLimit: 3)
        try await service.register(token: "t1")
        try await service.register(token: "t2")
        for _ in 0..<3 { _ = try await send(service, to: "t1") }
        do {
            _ = try await send(service, to: "t1")
            Issue.record("the fourth message in a minute was accepted")
        } catch {
            #expect(error.code == 429)
            #expect(error.errorCode == "QUOTA_EXCEEDED")
        }
        _ = try await send(service, to: "t2")  // another phone is not affected
        clock.advance(60)
        _ = try await send(service, to: "t1")  // the window has moved on
        #expect(try await service.inbox(token: "t1").count == 4)
    }

    /// Sends that arrive at once, through two instances on one database, are counted exactly:
    /// the limit's worth are taken, every other one is refused.
    @Test(arguments: TestEngine.available) func concurrentSendsThroughTwoInstancesKeepTheLimit(on engine: TestEngine) async throws {
        let store = try await engine.open(PushStore.self)
        let clock = clock
        let instances = [store, try await engine.otherInstance(of: store)].map {
            PushService(store: $0, configuration: .init(project: "demo", rateLimit: 3), now: { clock.now() })
        }
        try await instances[0].register(token: "t1")
        let sent = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<20 { group.addTask { (try? await self.send(instances[index % 2], to: "t1")) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(sent == 3)
        #expect(try await instances[1].inbox(token: "t1").count == 3)
    }

    /// A push the FCM endpoint of one instance takes reaches the phone's screen open on another.
    @Test(.enabled(if: TestEngine.postgresURL != nil), .timeLimit(.minutes(1))) func aPushTakenByOneInstanceReachesAScreenOnAnother() async throws {
        let store = try await TestEngine.postgres.open(PushStore.self)
        let clock = clock
        let (taking, showing) = (
            PushService(store: store, configuration: .init(project: "demo"), now: { clock.now() }),
            PushService(store: try await TestEngine.postgres.otherInstance(of: store), configuration: .init(project: "demo"), now: { clock.now() })
        )
        try await taking.register(token: "t1")
        var screen = showing.deliveries.subscribe("t1").makeAsyncIterator()
        let relay = Task { await showing.relayOtherInstancesDeliveries() }
        defer { relay.cancel() }
        // the first may come with the inbox the relay sends when it starts listening; once it is
        // seen the relay listens, so the second can come only as the other instance's notice
        // (a message may come twice: with the inbox, and as its notice; the screen knows it by its id)
        func next(besides shown: String?) async -> String? {
            while let message = await screen.next() { if message.name != shown { return message.name } }
            return nil
        }
        let first = try await send(taking, to: "t1")
        #expect(await next(besides: nil) == first)
        let second = try await send(taking, to: "t1")
        #expect(await next(besides: first) == second)
    }

    /// A send counts for `rateWindow` seconds after it, the last of them included: 59 s later it
    /// still fills the window, 60 s later it has left it; a refused send counts for nothing.
    @Test(arguments: TestEngine.available) func theWindowEndsSixtySecondsAfterASend(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine, rateLimit: 2)
        try await service.register(token: "t1")
        // a refusal says, as FCM's Retry-After, when the window's oldest send leaves it
        func outcome() async -> String {
            do { _ = try await send(service, to: "t1") } catch { return error.retryAfter.map { "\(error.errorCode) \($0)" } ?? error.errorCode }
            return "sent"
        }
        #expect(await outcome() == "sent")  // at 0
        clock.advance(30)
        #expect(await outcome() == "sent")  // at 30
        clock.advance(29)
        #expect(await outcome() == "QUOTA_EXCEEDED 1")  // at 59: both still count
        clock.advance(1)
        #expect(await outcome() == "sent")  // at 60: the one at 0 has left, the refusal at 59 never counted
        #expect(await outcome() == "QUOTA_EXCEEDED 30")  // at 60: the ones at 30 and 60
        clock.advance(29)
        #expect(await outcome() == "QUOTA_EXCEEDED 1")  // at 89
        clock.advance(1)
        #expect(await outcome() == "sent")  // at 90
        #expect(try await service.inbox(token: "t1").count == 4)
    }

    /// The push bombing guard outlives the process: a restart on the same file starts with the
    /// window as it was, and only the clock empties it.
    @Test func theRateWindowSurvivesARestart() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let clock = clock
        func start() throws -> PushService {
            PushService(store: try .open(path: file), configuration: .init(project: "demo", rateLimit: 2), now: { clock.now() })
        }
        var service: PushService? = try start()
        try await service?.register(token: "t1")
        for _ in 1...2 { _ = try await send(try #require(service), to: "t1") }
        service = nil  // the first server is gone; its file stays
        let restarted = try start()
        let refused = await #expect(throws: FCMError.self) { try await send(restarted, to: "t1") }
        #expect(refused?.errorCode == "QUOTA_EXCEEDED")
        clock.advance(60)
        _ = try await send(restarted, to: "t1")
    }

    @Test(arguments: TestEngine.available) func aSubscriberGetsNewMessages(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        try await service.register(token: "t1")
        let stream = service.deliveries.subscribe("t1")
        let name = try await send(service, to: "t1")
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.name == name)
    }
}
