import Foundation
import GRDB
import StateExport
import Storage

/// The backend's side of an export: accounts, devices, the Second Factor Server's records, the
/// console's policy and flags, and the server key the phones pinned. Sessions stay behind.
extension BackendStore {
    /// What the backend is in an export.
    public struct Exported: Sendable {
        public var backend: ExportedState.Backend
        public var serverSecretKey: Data
        /// By account id.
        public var otpKeys: [String: Data]
        /// By device id.
        public var pinPublicKeys: [String: Data]
    }

    /// Everything the backend keeps about the phones, read in one transaction.
    public func exported() async throws(StateExportError) -> Exported {
        do {
            return try await readAll { tx in try tx.exported() }
        } catch let error as StateExportError { throw error } catch { throw .storage("the backend could not be read: \(error)") }
    }

    /// Whether the backend holds no account, device or second factor (sessions and the key do not count).
    public func isEmpty() async throws(StateExportError) -> Bool {
        do {
            return try await read { tx in
                try tx.sql.fetchOne(
                    Bool.self,
                    "SELECT NOT EXISTS (SELECT 1 FROM account) AND NOT EXISTS (SELECT 1 FROM device) AND NOT EXISTS (SELECT 1 FROM secondFactorAccount)",
                    []) ?? false
            }
        } catch { throw .storage("the backend could not be read: \(error)") }
    }

    /// The state's backend, in one transaction, its server key in place of the one there was; with
    /// `replacing`, sessions and everything else of before are gone too.
    public func load(_ state: ExportedState, replacing: Bool, at time: Date) async throws(StateExportError) {
        try Self.check(state)
        do {
            try await write { tx in
                if replacing { try tx.sql.emptyTables(keeping: []) }
                try tx.load(state, at: time)
            }
        } catch { throw .storage("the backend could not be stored (nothing was changed): \(error)") }
    }

    /// Refuses a state whose backend the store would not take, before any store is written.
    /// The names and ids are held to the rules the backend's own routes follow.
    public static func check(_ state: ExportedState) throws(StateExportError) {
        let backend = state.backend
        do {
            if let policy = backend.policy {
                _ = try SecondFactorPolicy(maxAttempts: policy.maxAttempts, penalties: policy.penalties).validated()
            }
            for account in backend.accounts {
                try DemoBackend.checkName(account.userId, field: "account \(account.id): userId", limit: 128)
                try DemoBackend.checkName(account.displayName, field: "account \(account.id): displayName", limit: 128)
                try DemoBackend.checkDeviceId(account.deviceId)
                guard account.otpFailures >= 0 else { throw BackendError.invalid("account \(account.id): otpFailures", "is below 0") }
            }
            for device in backend.devices {
                try DemoBackend.checkDeviceId(device.deviceId)
                try DemoBackend.checkName(device.name, field: "device \(device.deviceId): name", limit: 64)
            }
            for factor in backend.secondFactors {
                try DemoBackend.checkDeviceId(factor.deviceId)
                guard factor.failedAttempts >= 0 else { throw BackendError.invalid("device \(factor.deviceId): failedAttempts", "is below 0") }
            }
            if let unknown = backend.serverFlags.first(where: { ServerFlag(rawValue: $0.name) == nil }) {
                throw BackendError.invalid("serverFlags", "name \(unknown.name), which is not a server flag")
            }
        } catch { throw .invalid("the backend: \(error)") }
    }
}

extension BackendStore.Transaction {
    fileprivate func exported() throws -> BackendStore.Exported {
        guard let key = try sql.fetchOne(ServerKeyRecord.self, "SELECT * FROM serverKey WHERE id = 1", []) else {
            throw StateExportError.invalid("the backend has no server key yet")
        }
        let accounts = try sql.fetchAll(AccountRecord.self, "SELECT * FROM account ORDER BY createdAt, id", [])
        let factors = try sql.fetchAll(SecondFactorRecord.self, "SELECT * FROM secondFactorAccount ORDER BY deviceId", [])
        let policy = try sql.fetchOne(SecondFactorPolicyRecord.self, "SELECT * FROM secondFactorPolicy WHERE id = 1", [])
        return BackendStore.Exported(
            backend: ExportedState.Backend(
                accounts: accounts.map {
                    ExportedState.BackendAccount(
                        id: $0.id, userId: $0.userId, displayName: $0.displayName, deviceId: $0.deviceId, publicKey: $0.publicKey,
                        createdAt: $0.createdAt, otpReference: $0.otpReference, otpFailures: $0.otpFailures, otpLastStep: $0.otpLastStep)
                },
                devices: try sql.fetchAll(DeviceRecord.self, "SELECT * FROM device ORDER BY deviceId", []).map {
                    ExportedState.Device(deviceId: $0.deviceId, name: $0.name, fcmToken: $0.fcmToken, updatedAt: $0.updatedAt)
                },
                secondFactors: factors.map {
                    ExportedState.SecondFactor(
                        deviceId: $0.deviceId, failedAttempts: $0.failedAttempts, isBlocked: $0.isBlocked, penalisedUntil: $0.penalisedUntil,
                        updatedAt: $0.updatedAt, biometricPublicKey: $0.biometricPublicKey, devicePublicKey: $0.devicePublicKey)
                },
                policy: policy.map { ExportedState.Policy(maxAttempts: $0.maxAttempts, penalties: $0.penalties, updatedAt: $0.updatedAt) },
                serverFlags: try serverFlags().map {
                    ExportedState.ServerFlag(name: $0.name, enabled: $0.enabled, updatedAt: $0.updatedAt)
                }),
            serverSecretKey: key.secretKey,
            otpKeys: Dictionary(uniqueKeysWithValues: accounts.compactMap { account in account.otpKey.map { (account.id, $0) } }),
            pinPublicKeys: Dictionary(uniqueKeysWithValues: factors.map { ($0.deviceId, $0.pinPublicKey) }))
    }

    fileprivate func load(_ state: ExportedState, at time: Date) throws {
        let backend = state.backend
        let secrets = state.secrets
        try ServerKeyRecord.insertion.run(ServerKeyRecord(id: 1, secretKey: secrets.serverSecretKey, createdAt: time), sql)
        for account in backend.accounts {
            try insert(
                AccountRecord(
                    id: account.id, userId: account.userId, displayName: account.displayName, deviceId: account.deviceId,
                    publicKey: account.publicKey, createdAt: account.createdAt, otpReference: account.otpReference,
                    otpKey: secrets.backendOTPKeys[account.id], otpFailures: account.otpFailures, otpLastStep: account.otpLastStep))
        }
        for device in backend.devices {
            try save(DeviceRecord(deviceId: device.deviceId, name: device.name, fcmToken: device.fcmToken, updatedAt: device.updatedAt))
        }
        for factor in backend.secondFactors {
            guard let pinPublicKey = secrets.pinPublicKeys[factor.deviceId] else {
                throw StateExportError.invalid("device \(factor.deviceId) has no PIN key")
            }
            try insert(
                SecondFactorRecord(
                    deviceId: factor.deviceId, pinPublicKey: pinPublicKey, failedAttempts: factor.failedAttempts, isBlocked: factor.isBlocked,
                    penalisedUntil: factor.penalisedUntil, updatedAt: factor.updatedAt, biometricPublicKey: factor.biometricPublicKey,
                    devicePublicKey: factor.devicePublicKey))
        }
        if let policy = backend.policy {
            try save(SecondFactorPolicy(maxAttempts: policy.maxAttempts, penalties: policy.penalties), at: policy.updatedAt)
        }
        for flag in backend.serverFlags {
            try ServerFlagRecord.insertion.run(ServerFlagRecord(name: flag.name, enabled: flag.enabled, updatedAt: flag.updatedAt), sql)
        }
    }
}
