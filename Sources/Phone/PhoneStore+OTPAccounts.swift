import Foundation
import Storage

/// The phones' OTP accounts (otpauth:// key URIs), read and written here only.
extension PhoneStore {
    /// A new OTP account, unless the phone keeps one with the same secret, issuer and label: then
    /// nothing is written and that account is answered.
    func insert(_ account: OTPAccountRecord) async throws(PhoneError) -> OTPAccountRecord? {
        try await write { sql in
            let kept = try sql.fetchOne(
                OTPAccountRecord.self, "SELECT * FROM otpAccount WHERE phoneId = ? AND secret = ? AND issuer = ? AND label = ?",
                [account.phoneId, account.secret, account.issuer, account.label])
            if kept == nil { try OTPAccountRecord.insertion.run(account, sql) }
            return kept
        }
    }

    /// A phone's OTP accounts, oldest first.
    func otpAccounts(phoneId: String) async throws(PhoneError) -> [OTPAccountRecord] {
        try await read { sql in
            try sql.fetchAll(OTPAccountRecord.self, "SELECT * FROM otpAccount WHERE phoneId = ? ORDER BY createdAt, id", [phoneId])
        }
    }

    func otpAccount(_ id: String, phoneId: String) async throws(PhoneError) -> OTPAccountRecord? {
        try await read { sql in try Self.otpAccount(id, phoneId: phoneId, sql) }
    }

    /// HOTP's next code: the counter moved on by one, unless it is at the end of what the column
    /// holds; the account as it is then, and whether it moved. A TOTP account has no counter to move.
    func advanceCounter(of id: String, phoneId: String) async throws(PhoneError) -> (account: OTPAccountRecord, advanced: Bool)? {
        try await write { sql in
            let advanced =
                try sql.execute("UPDATE otpAccount SET counter = counter + 1 WHERE id = ? AND phoneId = ? AND counter < ?", [id, phoneId, Int64.max])
                > 0
            return try Self.otpAccount(id, phoneId: phoneId, sql).map { ($0, advanced) }
        }
    }

    /// Removes the OTP account; the account as it was, nil when there was none.
    func deleteOTPAccount(_ id: String, phoneId: String) async throws(PhoneError) -> OTPAccountRecord? {
        try await write { sql in
            let account = try Self.otpAccount(id, phoneId: phoneId, sql)
            try sql.execute("DELETE FROM otpAccount WHERE id = ? AND phoneId = ?", [id, phoneId])
            return account
        }
    }

    private static func otpAccount(_ id: String, phoneId: String, _ sql: any StoreSQL) throws -> OTPAccountRecord? {
        try sql.fetchOne(OTPAccountRecord.self, "SELECT * FROM otpAccount WHERE id = ? AND phoneId = ?", [id, phoneId])
    }
}

extension OTPAccountRecord {
    static let insertion = NamedInsert<OTPAccountRecord>(
        into: databaseTableName,
        [
            "id": { $0.id }, "phoneId": { $0.phoneId }, "issuer": { $0.issuer }, "label": { $0.label }, "algorithm": { $0.algorithm },
            "digits": { $0.digits }, "period": { $0.period }, "counter": { $0.counter }, "secret": { $0.secret },
            "createdAt": { StoredDate($0.createdAt) },
        ])
}
