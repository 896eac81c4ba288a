import Backend
import BackendAPI
import Foundation
import Synchronization
import TestDoubles
import Testing

/// What counts and logs sessions hears of every change through `changes`, which carries no
/// view: it must say what a watching console's views say, change for change.
@Suite struct SessionChangesTests {
    /// Values a broadcaster handed on, in order (delivered on the sender's thread).
    final class Heard<Value: Sendable>: Sendable {
        private let values = Mutex<[Value]>([])
        var all: [Value] { values.withLock { $0 } }
        func append(_ value: Value) { values.withLock { $0.append(value) } }
    }

    @Test func everyChangeIsHeardAsTheConsoleSeesIt() async throws {
        let clock = TestClock()
        let backend = try await DemoBackend(store: .inMemory(), baseURL: { "http://127.0.0.1:8080" }, now: clock.now)
        let views = Heard<BackendSession>()
        let changes = Heard<SessionChange>()
        let watching = [backend.events.forward(views.append), backend.changes.forward(changes.append)]
        defer { for subscription in watching { subscription.cancel() } }

        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let (login, _) = try await device.confirmedSession(backend, user: "alice", account: account)
        let refused = try await backend.createSession(type: .login, userId: "alice", displayName: nil)
        clock.advance(3600)
        _ = try? await device.redeem(backend, refused)

        let seen = changes.all.map { "\($0.id) \($0.type) \($0.userId) \($0.status.rawValue) \($0.failure ?? "-")" }
        #expect(seen == views.all.map { "\($0.id) \($0.type) \($0.userId) \($0.status.rawValue) \($0.failure ?? "-")" })
        #expect(changes.all.filter { $0.id == login }.map(\.status) == [.pending, .redeemed, .confirmed])
        // a redeem refused for its expiry changes nothing, so nothing is heard of it
        #expect(changes.all.filter { $0.id == refused.id }.map(\.status) == [.pending])
        #expect(Set(changes.all.map(\.type)) == ["enrol", "login"])
    }

    /// A console watching one instance sees the sessions another instance on the same
    /// PostgreSQL creates and changes; that instance's counts (`changes`) stay its own.
    @Test(.enabled(if: TestEngine.postgresURL != nil), .timeLimit(.minutes(1)))
    func aConsoleSeesTheSessionsAnotherInstanceChanges() async throws {
        let store = try await TestEngine.postgres.open(BackendStore.self)
        let changing = try await DemoBackend(store: store, baseURL: { "http://127.0.0.1:8080" })
        let watched = try await DemoBackend(store: try await TestEngine.postgres.otherInstance(of: store), baseURL: { "http://127.0.0.1:8080" })
        var console = watched.events.subscribe().makeAsyncIterator()
        let counted = Heard<SessionChange>()
        let counting = watched.changes.forward(counted.append)
        defer { counting.cancel() }
        let relay = Task { await watched.relayOtherInstancesSessions() }
        defer { relay.cancel() }

        // the new session may come with the recent ones the relay sends when it starts listening;
        // once it is seen the relay listens, so the redeem can come only as the other's notice
        let session = try await changing.createSession(type: .enrol, userId: "alice", displayName: nil)
        // (the same view may come twice: with the recent ones, and as its notice)
        func next(besides shown: SessionStatus?) async -> SessionStatus? {
            while let seen = await console.next() { if seen.id == session.id && seen.status != shown { return seen.status } }
            return nil
        }
        #expect(await next(besides: nil) == .pending)
        _ = try await ScriptedDevice().redeem(changing, session)
        #expect(await next(besides: .pending) == .redeemed)
        #expect(counted.all.isEmpty)
    }
}
