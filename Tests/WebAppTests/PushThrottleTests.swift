import Backend
import Foundation
import HummingbirdTesting
import TestDoubles
import Testing
import WebApp

/// A push to a phone over its quota does not hold the console: the request is answered at once,
/// saying when the push goes again, and it goes then.
@Suite struct PushThrottleTests {
    @Test func aThrottledPushIsAnsweredAtOnceAndSentWhenItsWindowAllows() async throws {
        let clock = TestClock(Date())
        let waits = SleepRecorder()
        // a wait longer than a request may take is held until the test lets it end (or, should
        // a request wait for it, for two seconds, so the test fails instead of hanging), and then
        // moves the clock past it, so the push service's window has passed
        let (longWaitEnds, endLongWait) = AsyncStream<Void>.makeStream()
        var configuration = testConfiguration()
        configuration.push.rateLimit = 1
        configuration.push.rateWindow = 60
        configuration.now = { clock.now() }
        configuration.sleep = { duration in
            waits.sleep(duration)
            if duration > .seconds(10) {
                await withTaskGroup { group in
                    group.addTask { for await _ in longWaitEnds { break } }
                    group.addTask { try? await Task.sleep(for: .seconds(2)) }
                    await group.next()
                    group.cancelAll()
                }
            }
            clock.advance(Double(duration.components.seconds))
        }
        configuration.random = { 0.5 }
        try await buildApplication(configuration).test(.live) { client in
            let phone = try await client.createPhone()
            let first = try await client.startSession("enrol", user: "alice", extra: ["pushToken": phone.fcmToken])
            #expect(first.dispatch == "dispatched")

            let asked = clock.now()
            let second = try await client.startSession("enrol", user: "bob", extra: ["pushToken": phone.fcmToken])
            #expect(second.dispatch == "dispatchWaiting")
            let retryAt = try #require(second.pushRetryAt)
            #expect(retryAt > asked && retryAt <= asked.addingTimeInterval(61))
            #expect(clock.now() == asked, "the request waited \(waits.recorded)")

            endLongWait.yield()
            var session = second
            for _ in 0..<500 where session.dispatch == "dispatchWaiting" {
                try await Task.sleep(for: .milliseconds(10))
                session = try await client.backendSession(second.id)
            }
            #expect(session.dispatch == "dispatched")
            #expect(session.pushRetryAt == nil)
            let inbox = try await client.send(.get, "/api/phones/\(phone.id)/inbox").decode(PushDeliveryTests.Inbox.self)
            #expect(inbox.messages.count == 2)
        }
    }
}
