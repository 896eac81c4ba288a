import Foundation
import Hummingbird
import Scenarios

/// `/api/clock`: the server's time, and with `serve --clock manual` a test's way to move it on
/// (docs/recording.md) instead of waiting an expiry, a TOTP step or a back-off out.
struct ClockController {
    /// nil: the wall clock, which nobody moves.
    let clock: ManualClock?
    let now: @Sendable () -> Date
    let recordings: Recordings

    struct ClockState: ResponseEncodable {
        /// `system` or `manual`.
        let mode: String
        let now: Date
    }

    struct Move: Decodable {
        let advanceSeconds: Double
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get { _, _ in ClockState(mode: clock == nil ? "system" : "manual", now: now()) }
        routes.post { request, context -> ClockState in
            let move = try await request.decodeJSON(as: Move.self, context: context)
            return try await recordings.noting({ try advance(move) }) { _, refusal in
                .clockAdvanced(seconds: move.advanceSeconds, refusal: refusal)
            }
        }
        return routes
    }

    private func advance(_ move: Move) throws -> ClockState {
        guard let clock else {
            throw APIError(.conflict, "CLOCK_NOT_MANUAL", "this server keeps the wall clock's time: start it with --clock manual to move it")
        }
        guard move.advanceSeconds > 0, move.advanceSeconds <= ManualClock.longestMove else {
            throw APIError(
                .badRequest, "INVALID_FIELD",
                "'advanceSeconds' must be more than 0 and at most \(Int(ManualClock.longestMove)) (a year): time only moves on")
        }
        return ClockState(mode: "manual", now: clock.advance(by: move.advanceSeconds))
    }
}
