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
}
