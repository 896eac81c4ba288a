import Foundation
import Identifiers
import OTP

/// The phone as an authenticator app for any issuer's TOTP and HOTP keys (docs/otp.md#otpauth-accounts):
/// a scanned key URI becomes an OTP account, whose codes the phone makes when the screen asks for
/// them. The secret stays on the phone; the screen learns of each change (its list, its flow
/// log) without the secret or a code.
extension PhoneService {
    /// A key URI scanned, pasted or opened on the phone. The same key for the same issuer and
    /// label again is refused (`OTP_ACCOUNT_EXISTS`, naming the account kept): importing it twice
    /// would show two rows with the same codes.
    public func importOTPAccount(phoneId: String, uri: String) async throws(PhoneError) -> OTPAccount {
        _ = try await phoneAndAccounts(phoneId)
        let parsed: OTPAuthURI
        do { parsed = try OTPAuthURI(parsing: uri) } catch { throw PhoneError(.badRequest, error.code, error.message) }
        let record = OTPAccountRecord(id: UUID.random().uuidString.lowercased(), phoneId: phoneId, uri: parsed, createdAt: now())
        if let kept = try await store.insert(record) {
            throw PhoneError(
                .conflict, "OTP_ACCOUNT_EXISTS", "this phone already has the account \(Self.shown(kept.account)) (\(kept.id)) with this key")
        }
        device.tell(phoneId, .imported, record.account)
        return record.account
    }

    public func otpAccounts(phoneId: String) async throws(PhoneError) -> [OTPAccount] {
        _ = try await phoneAndAccounts(phoneId)
        return try await store.otpAccounts(phoneId: phoneId).map(\.account)
    }

    /// The account's code now (TOTP) or for its counter (HOTP, which stays where it is).
    public func otpCode(phoneId: String, accountId: String) async throws(PhoneError) -> OTPCode {
        _ = try await phoneAndAccounts(phoneId)
        guard let record = try await store.otpAccount(accountId, phoneId: phoneId) else { throw .otpAccountNotFound(accountId) }
        return OTPCode(try Self.generator(record), at: now())
    }

    /// HOTP's "next": the counter moves on by one and the new counter's code is answered.
    public func nextOTPCode(phoneId: String, accountId: String) async throws(PhoneError) -> OTPCode {
        _ = try await phoneAndAccounts(phoneId)
        guard let (record, advanced) = try await store.advanceCounter(of: accountId, phoneId: phoneId) else {
            throw .otpAccountNotFound(accountId)
        }
        guard record.counter != nil else {
            throw PhoneError(
                .conflict, "OTP_ACCOUNT_NOT_COUNTER_BASED", "the account \(Self.shown(record.account)) is time-based: its code moves with the clock")
        }
        guard advanced else { throw PhoneError(.conflict, "OTP_COUNTER_EXHAUSTED", "the account's counter is at its end") }
        let code = OTPCode(try Self.generator(record), at: now())
        device.tell(phoneId, .advanced, record.account)
        return code
    }

    public func deleteOTPAccount(phoneId: String, accountId: String) async throws(PhoneError) {
        _ = try await phoneAndAccounts(phoneId)
        guard let record = try await store.deleteOTPAccount(accountId, phoneId: phoneId) else { throw .otpAccountNotFound(accountId) }
        device.tell(phoneId, .deleted, record.account)
    }

    /// A stored account the bounds refuse was not written by this phone: its storage is at fault.
    private static func generator(_ record: OTPAccountRecord) throws(PhoneError) -> OTPGenerator {
        do { return try record.generator() } catch { throw .storageFailed }
    }

    /// `Issuer: label`, or the label alone.
    private static func shown(_ account: OTPAccount) -> String {
        account.issuer.map { "\($0): \(account.label)" } ?? account.label
    }
}

extension PhoneError {
    static func otpAccountNotFound(_ id: String) -> PhoneError {
        PhoneError(.notFound, "OTP_ACCOUNT_NOT_FOUND", "this phone has no OTP account \(id)")
    }
}
