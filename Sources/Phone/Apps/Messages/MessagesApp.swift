import Foundation
import Identifiers

/// The phone's Messages app (docs/sms.md): the texts the SMS gateway delivers to the phone's
/// number, newest first, each with the one-time code it carries. It keeps no state of its own
/// beside the device's records: a text is a row the moment it arrives, so a phone's texts are
/// the same on every instance.
public actor MessagesApp: PhoneApp {
    let device: Device

    /// The texts a phone keeps; older ones go as new ones come, as a phone's thread does.
    public static let kept = 200

    init(device: Device) { self.device = device }

    /// A text for `number`, from a sender: kept on the phone that has the number and shown on its
    /// screen, under the id the gateway gave it (so a sender's answer names the phone's text).
    /// Nil when no phone has the number, so the gateway can say the text was not delivered.
    public nonisolated func receive(id: String, to number: PhoneNumber, from sender: String, text: String) async throws(PhoneError) -> (
        phoneId: String, message: TextMessage
    )? {
        let message = TextMessage(id: id, from: sender, text: text, receivedAt: device.now())
        guard let phoneId = try await device.store.keepText(message, number: number.e164, keeping: Self.kept) else { return nil }
        device.screen.send(.textMessage(message), to: phoneId)
        return (phoneId, message)
    }

    /// The phone's texts, newest first.
    public nonisolated func texts(phoneId: String) async throws(PhoneError) -> [TextMessage] {
        _ = try await device.phone(phoneId)
        return try await device.store.texts(phoneId: phoneId)
    }

    /// Every text gone from the phone.
    public nonisolated func clear(phoneId: String) async throws(PhoneError) {
        _ = try await device.phone(phoneId)
        try await device.store.clearTexts(phoneId: phoneId)
    }

    /// Several instances on one PostgreSQL: a text another instance's gateway took shows on the
    /// screens open here (and in the event streams, which follow the screens' events), until
    /// the task is cancelled; returns at once on SQLite, which one process holds.
    public nonisolated func relayOtherInstancesTexts() async {
        guard let notices = device.store.database.notices() else { return }
        for await hearing in notices {
            guard case .changed(let notice) = hearing, notice.topic == PhoneStore.textTopic,
                let (phoneId, message) = try? await device.store.text(id: notice.id)
            else { continue }
            device.screen.send(.textMessage(message), to: phoneId)
        }
    }

    /// The phone with this number, if any.
    public nonisolated func phoneId(number: PhoneNumber) async throws(PhoneError) -> String? {
        try await device.store.phoneId(number: number.e164)
    }

    func show(_ phoneId: String, on detail: PhoneDetail) -> PhoneDetail { detail }
    func forget(_ phoneId: String) {}
    func forgetAll() {}
}
