import BackendAPI
import Broadcast
import Foundation
import OutOfBand
import SodiumKit
import Synchronization

/// What the phone's apps share of the device they run on: its records and key store, its screen
/// (each phone's events), its network and the servers it may reach, its PIN pad, its automation,
/// its clock, and the apps installed on it.
struct Device: Sendable {
    let store: PhoneStore
    let screen: KeyedBroadcaster<String, PhoneEvent>
    /// The phone's way to its backends.
    let network: any BackendClient
    /// Origins (`scheme://host:port`) a phone may talk to; checked before any connection.
    let allowedBackends: @Sendable () -> [String]
    let pinPad: PinPad
    let automation: Automation
    let now: @Sendable () -> Date
    let apps: InstalledApps

    func phone(_ id: String) async throws(PhoneError) -> PhoneRecord {
        try await phoneAndAccounts(id).0
    }

    func phoneAndAccounts(_ id: String) async throws(PhoneError) -> (PhoneRecord, [AccountRecord]) {
        guard let found = try await store.phoneAndAccounts(id) else { throw .phoneNotFound(id) }
        return found
    }

    /// The phone as its screens show it: its record, and what each app shows on it.
    func detail(_ id: String) async throws(PhoneError) -> PhoneDetail {
        let (phone, accounts) = try await phoneAndAccounts(id)
        var detail = PhoneDetail(
            id: phone.id, name: phone.name, deviceId: phone.deviceId, fcmToken: phone.fcmToken,
            fid: FirebaseInstallationID.of(token: phone.fcmToken), number: phone.number, createdAt: phone.createdAt, hasPin: phone.pinSalt != nil,
            pinLength: phone.pinLength, accounts: accounts.map(\.summary), settings: phone.settings, biometrics: phone.biometrics,
            pushNotifications: !phone.pushNotificationsDisabled)
        for app in apps.installed { detail = await app.show(id, on: detail) }
        return detail
    }

    /// Tells the phone's screens it changed (its record, its accounts).
    func announce(_ phoneId: String) async {
        if let detail = try? await detail(phoneId) { screen.send(.phoneChanged(detail), to: phoneId) }
    }

    /// Tells the phone's screens (their OTP account list and flow log) what happened to an
    /// account: never its secret or a code.
    func tell(_ phoneId: String, _ change: OTPAccountChange.Change, _ account: OTPAccount) {
        screen.send(.otpAccount(OTPAccountChange(change: change, account: account)), to: phoneId)
    }

    func checkAllowed(_ url: URL?) throws(PhoneError) {
        guard let url, let target = origin(of: url) else { throw .serverNotAllowed(url?.absoluteString ?? "(no URL)") }
        let allowed = allowedBackends().compactMap { URL(string: $0).flatMap(origin(of:)) }
        guard allowed.contains(target) else { throw .serverNotAllowed(target) }
    }
}

/// An app on the phone: the device asks each what it shows of a phone, and tells each to forget
/// one (deleted, reset, or moved to another instance).
protocol PhoneApp: Actor {
    func show(_ phoneId: String, on detail: PhoneDetail) -> PhoneDetail
    func forget(_ phoneId: String)
    func forgetAll()
}

/// The apps installed on the device, held weakly: the phone service owns them.
final class InstalledApps: Sendable {
    private struct Entry: @unchecked Sendable {
        weak var app: (any PhoneApp)?
    }
    private let entries = Mutex<[Entry]>([])

    func install(_ app: any PhoneApp) { entries.withLock { $0.append(Entry(app: app)) } }

    var installed: [any PhoneApp] { entries.withLock { $0.compactMap(\.app) } }
}

extension Device {
    static func random(_ count: Int) throws(PhoneError) -> [UInt8] {
        do { return try Sodium.randomBytes(count) } catch { throw .crypto(error.description) }
    }

    /// Shaped like an FCM registration token: a new Firebase installation id, `:APA91b`, and a
    /// long random tail.
    static func makeFCMToken() throws(PhoneError) -> String {
        "\(FirebaseInstallationID.make(randomBytes: try random(16))):APA91b\(Base64URL.encode(try random(100)))"
    }
}
