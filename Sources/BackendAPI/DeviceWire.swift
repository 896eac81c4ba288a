import Foundation

// What a phone asks its backend outside a session it redeemed: its own management flows, device
// information, removing an account, and the pull fallback; each signed by an account key.

/// A phone starting one of its own management flows for a device second factor; the account
/// key proves it is the phone.
public struct ManagementRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    public var type: WireSessionType
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.management`.
    public var signature: String

    public init(deviceId: String, accountId: String, type: WireSessionType, timestamp: Date, signature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.type = type
        self.timestamp = timestamp
        self.signature = signature
    }
}

public struct ManagementResponse: Codable, Sendable, Equatable {
    public var sessionId: String
    public var expiresAt: Date
    public var challenge: String
    public var secondFactor: WireSecondFactorAccount
    /// Whether the Second Factor Server holds a biometric key for the device.
    public var biometricsRegistered: Bool

    public init(sessionId: String, expiresAt: Date, challenge: String, secondFactor: WireSecondFactorAccount, biometricsRegistered: Bool) {
        self.sessionId = sessionId
        self.expiresAt = expiresAt
        self.challenge = challenge
        self.secondFactor = secondFactor
        self.biometricsRegistered = biometricsRegistered
    }
}

/// After a verified CHANGE_PIN or ADD_BIOMETRICS: the device's new factor key, with proof that
/// the phone holds it.
public struct SetSecondFactorRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    /// `pin` or `biometrics`.
    public var factor: String
    public var publicKey: String
    /// Over `SignedMessage.setSecondFactor`, by the account key and by the new factor key.
    public var accountSignature: String
    public var factorSignature: String

    public init(deviceId: String, accountId: String, factor: String, publicKey: String, accountSignature: String, factorSignature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.factor = factor
        self.publicKey = publicKey
        self.accountSignature = accountSignature
        self.factorSignature = factorSignature
    }
}

/// Nevis's DeviceInformationChange: a new name, a new FCM token, or no more pushes. The
/// account key proves it is the device.
public struct DeviceInformationChangeRequest: Codable, Sendable, Equatable {
    public var deviceId: String
    public var accountId: String
    public var name: String?
    public var fcmToken: String?
    /// Stop pushes to this device; a later `fcmToken` starts them again.
    public var disablePushNotifications: Bool?
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.deviceChange`.
    public var signature: String

    public init(
        deviceId: String, accountId: String, name: String?, fcmToken: String?, disablePushNotifications: Bool?,
        timestamp: Date, signature: String
    ) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.name = name
        self.fcmToken = fcmToken
        self.disablePushNotifications = disablePushNotifications
        self.timestamp = timestamp
        self.signature = signature
    }
}

/// A phone removing one of its accounts from the backend too (the SDK's "remove account").
public struct AccountRemovalRequest: Codable, Sendable, Equatable {
    public var deviceId: String
    public var accountId: String
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.removeAccount`.
    public var signature: String

    public init(deviceId: String, accountId: String, timestamp: Date, signature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.timestamp = timestamp
        self.signature = signature
    }
}

/// The device as the backend now knows it.
public struct DeviceInformation: Codable, Sendable, Equatable {
    public var deviceId: String
    public var name: String
    public var fcmToken: String?
    public var pushNotifications: Bool

    public init(deviceId: String, name: String, fcmToken: String?) {
        self.deviceId = deviceId
        self.name = name
        self.fcmToken = fcmToken
        pushNotifications = fcmToken != nil
    }
}

/// A phone asking for the operations waiting for one of its accounts (the pull fallback for a
/// phone without pushes, as nevisFIDO's pending out-of-band operations).
public struct PendingRequest: Codable, Sendable {
    public var deviceId: String
    public var accountId: String
    /// The phone's clock; the backend accepts it within a few minutes of its own.
    public var timestamp: Date
    /// The account key's signature over `SignedMessage.pending`.
    public var signature: String

    public init(deviceId: String, accountId: String, timestamp: Date, signature: String) {
        self.deviceId = deviceId
        self.accountId = accountId
        self.timestamp = timestamp
        self.signature = signature
    }
}

public struct PendingOperation: Codable, Sendable, Equatable {
    public var sessionId: String
    public var type: WireSessionType
    public var createdAt: Date
    public var expiresAt: Date
    /// The dispatch payload, as QR text.
    public var payload: String

    public init(sessionId: String, type: WireSessionType, createdAt: Date, expiresAt: Date, payload: String) {
        self.sessionId = sessionId
        self.type = type
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.payload = payload
    }
}

public struct PendingResponse: Codable, Sendable, Equatable {
    public var operations: [PendingOperation]

    public init(operations: [PendingOperation]) {
        self.operations = operations
    }
}

/// The answer to a request that has nothing more to say than "done".
public struct Acknowledged: Codable, Sendable, Equatable {
    public init() {}
}
