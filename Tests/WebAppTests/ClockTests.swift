import Backend
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import WebApp

/// `serve --clock manual`: time stands still until `POST /api/clock` moves it on, waits end when
/// it reaches them, and the rules that read the time see it; the wall clock refuses to be moved.
@Suite(.timeLimit(.minutes(1))) struct ClockTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    struct ClockState: Decodable {
        let mode: String
        let now: Date
    }

    @Test func aWaitEndsWhenTheClockReachesItsEndAndNotBefore() async throws {
        let clock = ManualClock(start: Self.start)
        let woke = Task { try await clock.sleep(for: .seconds(10)) }
        while clock.sleeping == 0 { await Task.yield() }
        clock.advance(by: 9)
        #expect(clock.now() == Self.start.addingTimeInterval(9) && clock.sleeping == 1, "9 s on, the wait goes on")
        clock.advance(by: 1)
        try await woke.value
        #expect(clock.sleeping == 0)
        try await clock.sleep(for: .zero)
    }

    @Test func aCancelledWaitEndsAtOnceWithCancellation() async throws {
        let clock = ManualClock(start: Self.start)
        let waiting = Task { try await clock.sleep(for: .seconds(60)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // one cancelled before it began
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(60))
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }

    @Test func theWallClockRefusesToBeMoved() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            #expect(try await client.send(.get, "/api/clock").decode(ClockState.self).mode == "system")
            let moved = try await client.send(.post, "/api/clock", json: ["advanceSeconds": 60])
            #expect((moved.status, moved.errorCode) == (.conflict, "CLOCK_NOT_MANUAL"))
        }
    }

    @Test func aSessionExpiresWhenTheTestMovesTheClockPastIt() async throws {
        var configuration = testConfiguration()
        configuration.useManualClock(ManualClock(start: Self.start))
        let app = try await buildApplication(configuration)
        let lifetime = configuration.backend.sessionLifetime
        try await app.test(.live) { client in
            #expect(try await client.send(.get, "/api/clock").decode(ClockState.self).now == Self.start)
            let session = try await client.startSession("enrol", user: "alice")
            var moved = try await client.send(.post, "/api/clock", json: ["advanceSeconds": lifetime - 1]).decode(ClockState.self)
            #expect(moved.now == Self.start.addingTimeInterval(lifetime - 1))
            #expect(try await client.backendSession(session.id).status == .pending)
            moved = try await client.send(.post, "/api/clock", json: ["advanceSeconds": 1.5]).decode(ClockState.self)
            #expect(try await client.backendSession(session.id).status == .expired)
            // time only moves on, and by at most a year; a refusal moves nothing
            for refused in [0, -5, ManualClock.longestMove + 1] {
                let answer = try await client.send(.post, "/api/clock", json: ["advanceSeconds": refused])
                #expect((answer.status, answer.errorCode) == (.badRequest, "INVALID_FIELD"))
            }
            #expect(try await client.send(.get, "/api/clock").decode(ClockState.self).now == moved.now)
        }
    }
}
