import Foundation
import GRDB
import Storage

/// Accounts, devices, the Second Factor Server's records and the server's settings. Cached
/// statements serve what a login runs (see BackendStore+Sessions.swift).
extension BackendStore.Transaction {
    // MARK: accounts

    func account(id: String) throws -> AccountRecord? {
        try AccountRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM account WHERE id = ?"), arguments: [id])
    }

    /// Only accounts enrolled with an OTP key have a reference.
    func account(otpReference: UInt32) throws -> AccountRecord? {
        try AccountRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM account WHERE otpReference = ?"), arguments: [otpReference])
    }

    func accounts(ofUser userId: String) throws -> [AccountRecord] {
        try AccountRecord.filter(AccountRecord.Columns.userId == userId).fetchAll(db)
    }

    func hasAccounts(ofUser userId: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM account WHERE userId = ?)"), arguments: [userId]) ?? false
    }

    func isOTPReferenceTaken(_ reference: UInt32) throws -> Bool {
        try AccountRecord.filter(AccountRecord.Columns.otpReference == reference).fetchCount(db) > 0
    }

    func insert(_ account: AccountRecord) throws {
        try account.insert(db)
    }

    func update(_ account: AccountRecord) throws {
        try db.cachedStatement(
            sql: """
                UPDATE account SET userId = ?, displayName = ?, deviceId = ?, publicKey = ?, createdAt = ?,
                    otpReference = ?, otpKey = ?, otpFailures = ?, otpLastStep = ?
                WHERE id = ?
                """
        ).execute(arguments: [
            account.userId, account.displayName, account.deviceId, account.publicKey, StoredDate(account.createdAt),
            account.otpReference, account.otpKey, account.otpFailures, account.otpLastStep, account.id,
        ])
    }

    func clearOTPFailures(accountId: String) throws {
        try db.cachedStatement(sql: "UPDATE account SET otpFailures = 0 WHERE id = ?").execute(arguments: [accountId])
    }

    func delete(_ account: AccountRecord) throws {
        try account.delete(db)
    }

    // MARK: devices

    func device(id: String) throws -> DeviceRecord? {
        try DeviceRecord.fetchOne(db, key: id)
    }

    /// Whether another device of a user who has an account on `deviceId` is called `name`.
    func isDeviceName(_ name: String, takenBesides deviceId: String) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM device
                    JOIN account AS theirs ON theirs.deviceId = device.deviceId
                    JOIN account AS mine ON mine.userId = theirs.userId AND mine.deviceId = ?
                    WHERE device.name = ? AND device.deviceId != ?)
                """, arguments: [deviceId, name, deviceId]) ?? false
    }

    func save(_ device: DeviceRecord) throws {
        try device.save(db)
    }

    // MARK: the Second Factor Server

    func secondFactor(deviceId: String) throws -> SecondFactorRecord? {
        try SecondFactorRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM secondFactorAccount WHERE deviceId = ?"),
            arguments: [deviceId])
    }

    func insert(_ secondFactor: SecondFactorRecord) throws {
        try secondFactor.insert(db)
    }

    func update(_ secondFactor: SecondFactorRecord) throws {
        try db.cachedStatement(
            sql: """
                UPDATE secondFactorAccount SET pinPublicKey = ?, failedAttempts = ?, isBlocked = ?, penalisedUntil = ?,
                    updatedAt = ?, biometricPublicKey = ?, devicePublicKey = ?
                WHERE deviceId = ?
                """
        ).execute(arguments: [
            secondFactor.pinPublicKey, secondFactor.failedAttempts, secondFactor.isBlocked, secondFactor.penalisedUntil.map(StoredDate.init),
            StoredDate(secondFactor.updatedAt), secondFactor.biometricPublicKey, secondFactor.devicePublicKey, secondFactor.deviceId,
        ])
    }

    /// The policy set from the console, if any.
    func storedPolicy() throws -> SecondFactorPolicy? {
        try SecondFactorPolicyRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM secondFactorPolicy WHERE id = 1"))?.policy
    }

    func save(_ policy: SecondFactorPolicy, at time: Date) throws {
        try SecondFactorPolicyRecord(maxAttempts: policy.maxAttempts, penalties: policy.penalties, updatedAt: time).save(db)
    }

    // MARK: server flags

    func serverFlags() throws -> [ServerFlagRecord] {
        try ServerFlagRecord.fetchAll(db)
    }

    func isEnabled(_ flag: ServerFlag) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT enabled FROM serverFlag WHERE name = ?"), arguments: [flag.rawValue]) == true
    }

    func setServerFlags(_ change: [String: Bool], at time: Date) throws {
        for (name, enabled) in change { try ServerFlagRecord(name: name, enabled: enabled, updatedAt: time).save(db) }
    }
}
