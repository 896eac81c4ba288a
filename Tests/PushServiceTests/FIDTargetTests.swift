import Foundation
import OutOfBand
import PushService
import TestDoubles
import Testing

/// `fid` as a send target (the Admin SDKs' `Message(fid=…)`): FCM's one-target rule, and a FID
/// reaching the phone whose token carries it, for as long as that token lives.
@Suite struct FIDTargetTests {
    static let fid = "cKx3ZfR8QmSWxv1aY2b3Xw"
    static let token = "\(fid):APA91bTail"
    let clock = TestClock()

    static func send(_ service: PushService, _ target: String) async throws(FCMError) -> String {
        let body = #"{"message": {\#(target), "data": {"k": "v"}, "notification": {"title": "Log in?"}}}"#
        return try await service.send(project: "demo", body: Array(body.utf8)).name
    }

    func makeService(on engine: TestEngine) async throws -> PushService {
        let clock = clock
        return PushService(store: try await engine.open(PushStore.self), configuration: .init(project: "demo", rateLimit: 3), now: { clock.now() })
    }

    @Test func aTokenCarriesItsFID() {
        #expect(FirebaseInstallationID.of(token: Self.token) == Self.fid)
        #expect(FirebaseInstallationID.of(token: "no-colon") == nil)
        #expect(FirebaseInstallationID.of(token: "bad/fid:APA91b") == nil)
        let made = FirebaseInstallationID.make(randomBytes: Array(repeating: 0xFF, count: 16))
        #expect(made.count == 22)
        #expect("cdef".contains(made.first!), "a FID starts with 0111: \(made)")
        #expect(FirebaseInstallationID.isWellFormed(made))
    }

    @Test func aFIDParsesAsTheTarget() throws {
        let request = try FCMSendRequest.parse(Array(#"{"message": {"fid": "\#(Self.fid)"}}"#.utf8))
        #expect(request.target == .fid(Self.fid))
    }

    static let refused: [(String, String)] = [
        (#""fid": "\#(fid)", "token": "\#(token)""#, "Exactly one of token, topic, condition or fid must be given, not token and fid."),
        (#""fid": "\#(fid)", "topic": "news""#, "not topic and fid"),
        (#""fid": """#, "Invalid value at 'message.fid'"),
        (#""fid": 7"#, "Invalid value at 'message.fid'"),
        (#""fid": "\#(fid):APA91b""#, "not a valid Firebase installation ID"),
        (#""fid": "\#(fid)\#(fid)""#, "not a valid Firebase installation ID"),
    ]

    @Test(arguments: refused)
    func badFIDTargetsAreInvalidArgument(_ target: String, _ mentions: String) async throws {
        let service = try await makeService(on: .sqlite)
        try await service.register(token: Self.token)
        do {
            _ = try await Self.send(service, target)
            Issue.record("accepted: \(target)")
        } catch {
            #expect(error.code == 400)
            #expect(error.body.error.details.first?.errorCode == "INVALID_ARGUMENT")
            #expect(error.message.contains(mentions), "\(error.message)")
        }
        #expect(try await service.inbox(token: Self.token).isEmpty)
    }

    @Test(arguments: TestEngine.available) func aSendToAFIDReachesTheTokensInbox(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        // neighbours whose FIDs start with this one's (or it with theirs) must not be reached,
        // whether they sort before the colon (digits, '-') or after it
        let neighbours = ["0", "-", "x"].map { "\(Self.fid)\($0):APA91bOther" } + ["\(Self.fid.dropLast()):APA91bThird"]
        try await service.register(tokens: neighbours + [Self.token])
        let name = try await Self.send(service, #""fid": "\#(Self.fid)""#)
        let inbox = try await service.inbox(token: Self.token)
        #expect(inbox.map(\.name) == [name])
        for neighbour in neighbours { #expect(try await service.inbox(token: neighbour).isEmpty, "\(neighbour)") }
    }

    @Test(arguments: TestEngine.available) func aRetiredTokensFIDIsUnregistered(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        await #expect(throws: FCMError.unregisteredInstallation(Self.fid)) { try await Self.send(service, #""fid": "\#(Self.fid)""#) }
        try await service.register(token: Self.token)
        try await service.retire(token: Self.token)
        await #expect(throws: FCMError.unregisteredInstallation(Self.fid)) { try await Self.send(service, #""fid": "\#(Self.fid)""#) }
    }

    /// The push bombing guard counts per app instance: sends by FID and by token share a window.
    @Test(arguments: TestEngine.available) func fidAndTokenShareTheRateWindow(on engine: TestEngine) async throws {
        let service = try await makeService(on: engine)
        try await service.register(token: Self.token)
        _ = try await Self.send(service, #""fid": "\#(Self.fid)""#)
        _ = try await Self.send(service, #""token": "\#(Self.token)""#)
        _ = try await Self.send(service, #""fid": "\#(Self.fid)""#)
        await #expect(throws: FCMError.self) { try await Self.send(service, #""token": "\#(Self.token)""#) }
    }
}
