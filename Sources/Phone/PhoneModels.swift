import AuthFlow
import Foundation

/// A simulated phone as lists show it.
public struct PhoneSummary: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var deviceId: String
    public var fcmToken: String
    public var createdAt: Date
}

/// A phone with its local data and current flow: what its screen needs after a reload.
public struct PhoneDetail: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var deviceId: String
    public var fcmToken: String
    public var createdAt: Date
    public var hasPin: Bool
    public var pinLength: Int
    public var accounts: [AccountSummary]
    public var settings: PhoneSettings
    public var flow: Flow?
}

/// What a user can set on a phone.
public struct PhoneSettings: Codable, Sendable, Equatable {
    /// Open an arriving push at once instead of showing its notification (as an app in the
    /// foreground may do).
    public var openPushesAtOnce: Bool

    public init(openPushesAtOnce: Bool) {
        self.openPushesAtOnce = openPushesAtOnce
    }
}

/// What a phone's screen is told.
public enum PhoneEvent: Sendable, Equatable {
    case flowUpdate(Flow)
    case phoneChanged(PhoneDetail)
}

extension PhoneRecord {
    var summary: PhoneSummary {
        PhoneSummary(id: id, name: name, deviceId: deviceId, fcmToken: fcmToken, createdAt: createdAt)
    }
}

extension AccountRecord {
    var summary: AccountSummary {
        AccountSummary(id: id, userId: userId, displayName: displayName,
                       server: ServerSummary(name: serverName, url: serverURL), createdAt: createdAt)
    }
}
