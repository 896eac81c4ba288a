import AuthFlow
import BackendAPI
import Foundation
import Identifiers
import OTP
import OutOfBand
import SodiumKit

/// The phones themselves: making one, its settings and simulated sensor, and the reset that
/// removes all its accounts.
extension PhoneService {
    /// A new phone, with the number given or the next free one of the fictional range.
    public func createPhone(name: String, number: PhoneNumber? = nil) async throws(PhoneError) -> PhoneSummary {
        let name = name.trimmingCharacters(in: .whitespaces)
        if let problem = ReadableText.nameProblem(in: name, limit: 64) { throw .invalid("name", problem) }
        var record = PhoneRecord(
            id: UUID.random().uuidString.lowercased(), name: name, deviceId: UUID.random().uuidString,
            fcmToken: try Device.makeFCMToken(), number: "", pinLength: configuration.pinPolicy.length,
            pinSalt: nil, createdAt: now(), openPushesAtOnce: false,
            deviceKeySeed: Data(try Device.random(Ed25519.seedLength)))
        if let number {
            if try await store.phoneId(number: number.e164) != nil { throw .numberTaken(number) }
            record.number = number.e164
            try await store.insert(record)
            return record.summary
        }
        // another instance may take the same free number at once: then a free one further on
        for attempt in 0..<Self.numberSearches {
            guard let number = try await freeNumber(attempt: attempt) else { continue }
            record.number = number.e164
            numbersBeingGiven.insert(record.number)
            defer { numbersBeingGiven.remove(record.number) }
            do {
                try await store.insert(record)
                return record.summary
            } catch {
                guard try await store.phoneId(number: record.number) != nil else { throw error }
            }
        }
        throw .noFreeNumber
    }

    /// How many windows of the fictional range a new phone's number is looked for in.
    static let numberSearches = 16
    /// How many numbers one look reads.
    static let numberWindow = 32

    /// A free number of the fictional range, or nil when the window looked in has none. The
    /// first look starts at the count of phones, so that numbers go out in order; after a
    /// collision with another instance, a random way further on, further each time, so that the
    /// two part; past a block of numbers given by hand that the first half did not clear,
    /// anywhere in the range. None looks behind the count, where numbers are dense.
    private func freeNumber(attempt: Int) async throws(PhoneError) -> PhoneNumber? {
        let count = try await store.phoneCount()
        let start =
            switch attempt {
            case 0: count
            case ..<(Self.numberSearches / 2): count + Int.random(in: 1...(Self.numberWindow * attempt))
            default: Int.random(in: 0..<PhoneNumber.fictionalRange)
            }
        let candidates = (0..<Self.numberWindow).map { PhoneNumber.fictional(start + $0) }
        let taken = try await store.takenNumbers(candidates.map(\.e164))
        // no suspension from here to the caller's reservation: two phones made here at once take two
        return candidates.first { !taken.contains($0.e164) && !numbersBeingGiven.contains($0.e164) }
    }

    /// The phone is gone, with its accounts and keys, as if the app were uninstalled: its backends
    /// keep its accounts. A flow or a retry it had stops. Answers its push token, to retire.
    public func deletePhone(id: String) async throws(PhoneError) -> String {
        let (phone, _) = try await phoneAndAccounts(id)
        await forget(id)
        guard try await store.delete(phoneId: id) else { throw .phoneNotFound(id) }
        return phone.fcmToken
    }

    /// Every phone gone, and everything running for them stopped.
    public func reset() async throws {
        for id in operations.keys { await forget(id) }
        for app in device.apps.installed { await app.forgetAll() }
        try await store.erasePhones()
        device.automation.forgetAll()
    }

    /// The phones' flows run on another instance now (this one missed its lease and the other
    /// took them): what this instance remembers of them goes, as a deletion's does; their data
    /// stays, shared in the database.
    public func release(_ phoneIds: Set<String>) async {
        for id in phoneIds { await forget(id) }
    }

    /// What the device and each app remember of the phone goes; a retry it had stops.
    private func forget(_ phoneId: String) async {
        operations.removeValue(forKey: phoneId)?.cancel()
        device.automation.forget(phoneId: phoneId)
        progresses[phoneId] = nil
        for app in device.apps.installed { await app.forget(phoneId) }
    }

    /// The phone a push for `fcmToken` reached, if it opens pushes at once (as an app in the
    /// foreground would); nil for no such phone, or one that keeps its pushes for the user.
    public func phoneOpeningPushesAtOnce(fcmToken: String) async throws(PhoneError) -> SDKApp.ReadPhone? {
        guard let local = try await store.phoneAndAccounts(fcmToken: fcmToken), local.0.settings.openPushesAtOnce else { return nil }
        return SDKApp.ReadPhone(local)
    }

    /// The phone whose push registration `fcmToken` is, if any (a push's phone, for the event stream).
    public nonisolated func phoneId(fcmToken: String) async throws(PhoneError) -> String? {
        try await store.phoneAndAccounts(fcmToken: fcmToken)?.0.id
    }

    public func phones() async throws(PhoneError) -> [PhoneSummary] {
        try await store.phones().map(\.summary)
    }

    public func phone(id: String) async throws(PhoneError) -> PhoneDetail {
        try await device.detail(id)
    }

    public func update(phoneId: String, settings: PhoneSettingsChange) async throws(PhoneError) -> PhoneDetail {
        try await changePhone(phoneId) { phone throws(PhoneError) in try phone.apply(settings) }
    }

    /// The simulated sensor: another fingerprint or face enrolled in the OS. As on a real phone,
    /// this invalidates the biometric key; the SDK finds out at its next use.
    public func enrolBiometricFeature(phoneId: String) async throws(PhoneError) -> PhoneDetail {
        try await changePhone(phoneId) { phone throws(PhoneError) in
            guard phone.biometricSensor else { throw .biometricsUnavailable("this phone has no biometric sensor") }
            guard phone.enrolledFeatures < 10 else { throw PhoneError(.conflict, "TOO_MANY_FEATURES", "the sensor holds at most 10 features") }
            phone.enrolledFeatures += 1
            phone.featureSetVersion += 1
        }
    }

    /// Every enrolled feature removed from the OS: no biometric can match any more.
    public func removeBiometricFeatures(phoneId: String) async throws(PhoneError) -> PhoneDetail {
        try await changePhone(phoneId) { phone throws(PhoneError) in
            phone.enrolledFeatures = 0
            phone.featureSetVersion += 1
        }
    }

    /// The SDK's last resort (docs/behaviour.md#remove-all-accounts): remove all accounts, which resets the SDK: no PIN, no biometric
    /// key, and a new device identity (the server's counters for the old one stay behind).
    /// The accounts stay on their servers.
    public func removeAllAccounts(phoneId: String) async throws(PhoneError) -> PhoneDetail {
        try await sdk.refuseDuringFlow(phoneId)
        let seed = Data(try Device.random(Ed25519.seedLength))
        return try await changePhone(phoneId, removing: .all) { phone throws(PhoneError) in
            phone.deviceId = UUID.random().uuidString
            phone.deviceKeySeed = seed
            phone.pinSalt = nil
            phone.pinPublicKey = nil
            phone.biometricSecretKey = nil
            phone.biometricKeySetVersion = nil
            phone.biometricUsesSinceLastPin = 0
            phone.lastPinAt = nil
        }
    }

    /// Changes the phone's record (and, in the same transaction, removes accounts: `PhoneStore.change`)
    /// and tells its screen.
    func changePhone(
        _ phoneId: String, removing accounts: PhoneStore.Accounts? = nil,
        _ body: @escaping @Sendable (inout PhoneRecord) throws(PhoneError) -> Void
    ) async throws(PhoneError) -> PhoneDetail {
        try await store.change(phoneId, removing: accounts, body)
        let detail = try await device.detail(phoneId)
        events.send(.phoneChanged(detail), to: phoneId)
        return detail
    }
}
