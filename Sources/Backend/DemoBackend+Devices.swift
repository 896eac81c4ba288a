import BackendAPI
import Foundation

extension DemoBackend {
    /// The SDK's DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes): the backend keeps the device's name (unique among the
    /// devices of its users) and the token its pushes go to.
    public func changeDeviceInformation(_ request: DeviceInformationChangeRequest) async throws(BackendError) -> DeviceInformation {
        let time = now()
        try Self.checkTimestamp(request.timestamp, now: time)
        if request.disablePushNotifications == true, request.fcmToken != nil {
            throw BackendError.invalid("disablePushNotifications", "cannot go with a new fcmToken (a token enables pushes)")
        }
        try Self.checkDeviceInformation(name: request.name, nameField: "name", fcmToken: request.fcmToken)
        return try await write { tx in
            let account = try Self.deviceAccount(tx, id: request.accountId, device: request.deviceId)
            guard Self.verify(request.signature, SignedMessage.deviceChange(request), key: account.publicKey) else {
                throw BackendError.invalidSignature
            }
            var device =
                try tx.device(id: request.deviceId)
                ?? DeviceRecord(deviceId: request.deviceId, name: request.deviceId, fcmToken: nil, updatedAt: time)
            if let name = request.name, name != device.name {
                guard try !tx.isDeviceName(name, takenBesides: request.deviceId) else {
                    throw BackendError(.conflict, "NAME_ALREADY_EXISTS", "another device of this user is already called \(name)")
                }
                device.name = name
            }
            if let token = request.fcmToken { device.fcmToken = token }
            if request.disablePushNotifications == true { device.fcmToken = nil }
            device.updatedAt = time
            try tx.save(device)
            return DeviceInformation(deviceId: device.deviceId, name: device.name, fcmToken: device.fcmToken)
        }
    }

    /// The phone removes one of its accounts here too; its sessions stay in the history.
    public func removeAccount(_ request: AccountRemovalRequest) async throws(BackendError) {
        let time = now()
        try Self.checkTimestamp(request.timestamp, now: time)
        try await write { tx in
            let account = try Self.deviceAccount(tx, id: request.accountId, device: request.deviceId)
            guard
                Self.verify(
                    request.signature, SignedMessage.removeAccount(accountId: account.id, timestamp: request.timestamp),
                    key: account.publicKey)
            else { throw BackendError.invalidSignature }
            try tx.delete(account)
        }
    }

    static func checkDeviceInformation(name: String?, nameField: String, fcmToken: String?) throws(BackendError) {
        if let name { try checkName(name, field: nameField, limit: 64) }
        if let fcmToken, !(1...4096).contains(fcmToken.utf8.count) || !fcmToken.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            throw BackendError.invalid("fcmToken", "must be 1 to 4096 printable ASCII characters")
        }
    }
}
