import Foundation
import GRDB
import Storage

/// Accounts, devices, the Second Factor Server's records and the server's settings. Cached
/// statements serve what a login runs (see BackendStore+Sessions.swift).
extension BackendStore.Transaction {
    // MARK: accounts

    func account(id: String) throws -> AccountRecord? {
        try sql.fetchOne(AccountRecord.self, "SELECT * FROM account WHERE id = ?", [id])
    }

    /// Only accounts enrolled with an OTP key have a reference.
    func account(otpReference: UInt32) throws -> AccountRecord? {
        try sql.fetchOne(AccountRecord.self, "SELECT * FROM account WHERE otpReference = ?", [otpReference])
    }

    func accounts(ofUser userId: String) throws -> [AccountRecord] {
        try sql.fetchAll(AccountRecord.self, "SELECT * FROM account WHERE userId = ? ORDER BY createdAt, id", [userId])
    }

    func hasAccounts(ofUser userId: String) throws -> Bool {
        try sql.fetchOne(Bool.self, "SELECT EXISTS (SELECT 1 FROM account WHERE userId = ?)", [userId]) ?? false
    }

    func isOTPReferenceTaken(_ reference: UInt32) throws -> Bool {
        try sql.fetchOne(Bool.self, "SELECT EXISTS (SELECT 1 FROM account WHERE otpReference = ?)", [reference]) ?? false
    }

    func insert(_ account: AccountRecord) throws {
        try AccountRecord.insertion.run(account, sql)
    }

    func update(_ account: AccountRecord) throws {
        try sql.execute(
            """
            UPDATE account SET userId = ?, displayName = ?, deviceId = ?, publicKey = ?, createdAt = ?,
                otpReference = ?, otpKey = ?, otpFailures = ?, otpLastStep = ?
            WHERE id = ?
            """,
            [
                account.userId, account.displayName, account.deviceId, account.publicKey, StoredDate(account.createdAt),
                account.otpReference, account.otpKey, account.otpFailures, account.otpLastStep, account.id,
            ])
    }

    func clearOTPFailures(accountId: String) throws {
        try sql.execute("UPDATE account SET otpFailures = 0 WHERE id = ?", [accountId])
    }

    func delete(_ account: AccountRecord) throws {
        try sql.execute("DELETE FROM account WHERE id = ?", [account.id])
    }

    // MARK: devices

    func device(id: String) throws -> DeviceRecord? {
        try sql.fetchOne(DeviceRecord.self, "SELECT * FROM device WHERE deviceId = ?", [id])
    }

    /// Whether another device of a user who has an account on `deviceId` is called `name`.
    func isDeviceName(_ name: String, takenBesides deviceId: String) throws -> Bool {
        try sql.fetchOne(
            Bool.self,
            """
                SELECT EXISTS (SELECT 1 FROM device
                    JOIN account AS theirs ON theirs.deviceId = device.deviceId
                    JOIN account AS mine ON mine.userId = theirs.userId AND mine.deviceId = ?
                    WHERE device.name = ? AND device.deviceId != ?)
            """, [deviceId, name, deviceId]) ?? false
    }

    func save(_ device: DeviceRecord) throws {
        try DeviceRecord.insertion.run(device, sql)
    }

    // MARK: the Second Factor Server

    func secondFactor(deviceId: String) throws -> SecondFactorRecord? {
        try sql.fetchOne(SecondFactorRecord.self, "SELECT * FROM secondFactorAccount WHERE deviceId = ?", [deviceId])
    }

    func insert(_ secondFactor: SecondFactorRecord) throws {
        try SecondFactorRecord.insertion.run(secondFactor, sql)
    }

    func update(_ secondFactor: SecondFactorRecord) throws {
        try sql.execute(
            """
            UPDATE secondFactorAccount SET pinPublicKey = ?, failedAttempts = ?, isBlocked = ?, penalisedUntil = ?,
                updatedAt = ?, biometricPublicKey = ?, devicePublicKey = ?
            WHERE deviceId = ?
            """,
            [
                secondFactor.pinPublicKey, secondFactor.failedAttempts, secondFactor.isBlocked, secondFactor.penalisedUntil.map(StoredDate.init),
                StoredDate(secondFactor.updatedAt), secondFactor.biometricPublicKey, secondFactor.devicePublicKey, secondFactor.deviceId,
            ])
    }

    /// The policy set from the console, if any.
    func storedPolicy() throws -> SecondFactorPolicy? {
        try sql.fetchOne(SecondFactorPolicyRecord.self, "SELECT * FROM secondFactorPolicy WHERE id = 1", [])?.policy
    }

    func save(_ policy: SecondFactorPolicy, at time: Date) throws {
        try SecondFactorPolicyRecord.insertion.run(
            SecondFactorPolicyRecord(maxAttempts: policy.maxAttempts, penalties: policy.penalties, updatedAt: time), sql)
    }

    // MARK: server flags

    func serverFlags() throws -> [ServerFlagRecord] {
        try sql.fetchAll(ServerFlagRecord.self, "SELECT * FROM serverFlag ORDER BY name", [])
    }

    func isEnabled(_ flag: ServerFlag) throws -> Bool {
        try sql.fetchOne(Bool.self, "SELECT enabled FROM serverFlag WHERE name = ?", [flag.rawValue]) == true
    }

    func setServerFlags(_ change: [String: Bool], at time: Date) throws {
        for (name, enabled) in change { try ServerFlagRecord.insertion.run(ServerFlagRecord(name: name, enabled: enabled, updatedAt: time), sql) }
    }
}
