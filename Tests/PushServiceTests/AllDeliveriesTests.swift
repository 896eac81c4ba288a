import Foundation
import OutOfBand
import Testing

@testable import PushService

/// What acts on every push (the opener of a phone that opens pushes at once, the timeline) must
/// see each one, however many arrive before it is scheduled: a missed push is a login that never
/// starts, or a delivery the timeline loses without counting it.
@Suite(.timeLimit(.minutes(1))) struct AllDeliveriesTests {
    @Test func aBurstLargerThanABroadcastBufferLosesNone() async throws {
        let push = PushService(store: try .inMemory())
        let arrivals = push.allDeliveries.subscribe()
        // sent back to back, with no suspension in which a reader could read any
        let burst = 500
        func message(_ id: String) -> PushService.InboxMessage {
            PushService.InboxMessage(
                id: id, name: "projects/authphone/messages/\(id)", receivedAt: Date(), message: PushMessage(data: ["id": id]))
        }
        for index in 0..<burst {
            push.allDeliveries.send((token: "token-\(index % 7)", message: message("m\(index)")))
        }
        // the newest: kept by any buffer, so the reading below ends either way
        push.allDeliveries.send((token: "token-0", message: message("end")))
        var seen: [String] = []
        for await arrival in arrivals {
            if arrival.message.id == "end" { break }
            seen.append(arrival.message.id)
        }
        let sent = (0..<burst).map { "m\($0)" }
        let lost = sent.filter { !seen.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(burst) lost, the first \(lost.first ?? "")")
        #expect(lost.isEmpty && seen == sent, "in the order sent")
    }
}
