import Broadcast
import Foundation

/// What the phone's apps share of the device they run on: its records and key store, its screen
/// (each phone's events), its PIN pad, its automation and its clock.
struct Device: Sendable {
    let store: PhoneStore
    let screen: KeyedBroadcaster<String, PhoneEvent>
    let pinPad: PinPad
    let automation: Automation
    let now: @Sendable () -> Date

    func phone(_ id: String) async throws(PhoneError) -> PhoneRecord {
        guard let found = try await store.phoneAndAccounts(id) else { throw .phoneNotFound(id) }
        return found.0
    }
}
