import AuthFlow
import Identifiers
import OutOfBand
import Phone
import PushService
import Retry

/// What a phone's operating system does between the app and the push service: it registers a
/// new phone's token, retires an uninstalled phone's, hands the app a refreshed one, and keeps
/// the notifications until the user opens or clears them. A phone and its push registration
/// change together here, whether a route or an arriving push asks.
struct PhonePlatform: Sendable {
    let phones: PhoneService
    let push: PushService
    /// Told of a deleted phone, whose flow stops without a final update.
    let monitor: ServiceMonitor

    /// A new phone, which the platform hands its push registration.
    func createPhone(name: String, number: PhoneNumber? = nil) async throws -> PhoneSummary {
        let phone = try await phones.createPhone(name: name, number: number)
        try await push.register(token: phone.fcmToken)
        return phone
    }

    /// The phone uninstalled: its token answers UNREGISTERED from now on, its inbox is gone.
    func deletePhone(id: String) async throws {
        let token = try await phones.deletePhone(id: id)
        monitor.forgot(phoneId: id, outcome: "PHONE_DELETED")
        try await push.clearInbox(token: token)
        try await push.retire(token: token)
    }

    /// The phones' flows run on another instance now: this one's flows for them stop without a
    /// final update.
    func release(_ phoneIds: Set<String>) async {
        await phones.release(phoneIds)
        for id in phoneIds { monitor.forgot(phoneId: id, outcome: "PHONE_MOVED") }
    }

    /// The platform refreshes the phone's FCM token: the old one answers UNREGISTERED at once;
    /// the phone tells its backends of the new one, retrying, and until it lands their pushes fail.
    func rotateToken(phoneId: String, retry: RetryPolicy?) async throws -> DeviceChangeResult {
        let (old, new) = try await phones.refreshFCMToken(phoneId: phoneId)
        try await push.register(token: new)
        try await push.retire(token: old)
        return try await phones.changeDeviceInformation(phoneId: phoneId, DeviceInformationChange(fcmToken: new), retry: retry)
    }

    func inbox(phoneId: String) async throws -> [PushService.InboxMessage] {
        try await push.inbox(token: phones.phone(id: phoneId).fcmToken)
    }

    /// A push pasted on the phone, put into its inbox as if FCM had delivered it. The phone is
    /// looked up before the push is read: an unknown phone is that, whatever was pasted.
    func receive(phoneId: String, _ pasted: () async throws -> PushMessage) async throws -> PushService.InboxMessage {
        let token = try await phones.phone(id: phoneId).fcmToken
        return try await push.receive(pasted(), token: token)
    }

    func clearInbox(phoneId: String) async throws {
        try await push.clearInbox(token: phones.phone(id: phoneId).fcmToken)
    }

    /// What opening a push started: an AuthPhone flow, or a privacyIDEA challenge on screen.
    enum Opened: Sendable {
        case flow(Flow)
        case privacyIDEA(PrivacyIDEARequest)
    }

    /// The user opens a notification: the app decodes the push and starts the operation.
    func open(messageId: String, phoneId: String) async throws -> Opened {
        let phone = try await phones.phone(id: phoneId)
        guard let message = try await push.inbox(token: phone.fcmToken).first(where: { $0.id == messageId }) else {
            throw APIError(.notFound, "MESSAGE_NOT_FOUND", "no message \(messageId) in this phone's inbox")
        }
        return try await open(message, token: phone.fcmToken) {
            if message.app == .privacyIDEA {
                return .privacyIDEA(try await phones.privacyIDEA.receiveChallenge(phoneId: phone.id, data: message.message.data))
            }
            return .flow(try await phones.sdk.startOutOfBand(phoneId: phone.id, payload: message.message.payload()))
        }
    }

    /// An arriving push opened at once, for a phone whose settings ask for it (as an app in the
    /// foreground would); nil when the phone keeps its pushes for the user. A privacyIDEA
    /// challenge always goes to the phone at once: privacyIDEA's app lists a push request as it
    /// arrives, and the notification only leads to it. `elsewhere` tells whether the phone's flow
    /// runs on another instance, which opens it there: then nothing is opened here.
    func openAtOnce(
        _ message: PushService.InboxMessage, token: String, elsewhere: (_ phoneId: String) async throws -> Bool = { _ in false }
    ) async throws -> Opened? {
        if message.app == .privacyIDEA {
            // a challenge opens on its phone's home, whatever the phone's settings
            guard let phoneId = try await phones.phoneId(fcmToken: token) else {
                throw PhoneError(.notFound, "PHONE_NOT_FOUND", "no phone holds this FCM token")
            }
            if try await elsewhere(phoneId) { return nil }
            return try await open(message, token: token) {
                .privacyIDEA(try await phones.privacyIDEA.receiveChallenge(phoneId: phoneId, data: message.message.data))
            }
        }
        guard let phone = try await phones.phoneOpeningPushesAtOnce(fcmToken: token) else { return nil }
        if try await elsewhere(phone.id) { return nil }
        return try await open(message, token: token) { .flow(try await phones.sdk.startOutOfBand(phone, payload: message.message.payload())) }
    }

    /// Starts the message's payload on the phone (`starting`) and takes it out of the inbox once
    /// the phone has it: when its flow starts, or when the backend could not be reached and the
    /// phone keeps trying by itself (docs/behaviour.md#offline-otp). A refused AuthPhone payload
    /// stays in the inbox, to be opened once the phone can take it; a privacyIDEA challenge the
    /// phone refused (forged, answered before, for a token it does not hold) goes, as the app
    /// drops it: nothing can make it right later.
    private func open(
        _ message: PushService.InboxMessage, token: String, _ starting: () async throws -> Opened
    ) async throws -> Opened {
        do {
            let flow = try await starting()
            _ = try await push.take(token: token, id: message.id)
            return flow
        } catch let error as PhoneError where error.isRetryable || (message.app == .privacyIDEA && error.refusesTheMessage) {
            _ = try? await push.take(token: token, id: message.id)
            throw error
        }
    }
}
