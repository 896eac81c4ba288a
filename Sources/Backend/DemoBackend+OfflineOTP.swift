import BackendAPI
import Foundation
import OTP
import OutOfBand
import SodiumKit

/// NIST SP 800-63B §5.2.2: at most 100 consecutive wrong OTPs per account.
public enum OTPFailureLimit {
    public static let maximum = 100
    public static let allowed = 1...maximum
}

/// nextAuth's server flags; each is off until set. The SKIP_ ones are the defaults of the
/// sessions that do not say (docs/behaviour.md#user-interaction).
public enum ServerFlag: String, CaseIterable, Sendable {
    case enableOTP = "ENABLE_OTP"
    /// Logins and transactions skip the phone's session confirmation where no account choice is left.
    case skipConfirmation = "SKIP_CONFIRMATION"
    /// Logins skip the second factor.
    case skipSecondFactor = "SKIP_SECOND_FACTOR"
}

/// The offline fallback at the backend (docs/behaviour.md#offline-otp): the OTP key agreed at enrolment, the server flag
/// that allows OTP logins, and `otpLogin`, which a relying party calls with the code the user
/// typed. docs/otp.md has the rules.
extension DemoBackend {
    struct OTPAgreement {
        /// The phone's half as it sent it, which the backend's signature covers.
        let phonePublicKey: String
        let serverPublicKey: [UInt8]
        let sharedKey: [UInt8]
    }

    /// The backend's half of the key, made for this one account; its secret half is dropped.
    static func agreeOTPKey(phonePublicKey: String) throws(BackendError) -> OTPAgreement {
        guard let phoneKey = Base64URL.decode(phonePublicKey), phoneKey.count == KeyExchange.publicKeyLength else {
            throw BackendError.invalid("otpPublicKey", "must be a base64url X25519 public key (32 bytes)")
        }
        do {
            let pair = try KeyExchange.KeyPair.generate()
            return OTPAgreement(
                phonePublicKey: phonePublicKey, serverPublicKey: pair.publicKey,
                sharedKey: try pair.serverSharedKey(clientPublicKey: phoneKey))
        } catch {
            throw BackendError.invalid("otpPublicKey", "is not a usable X25519 public key")
        }
    }

    func otpEnrolment(_ agreement: OTPAgreement, sessionId: String, accountId: String, reference: UInt32) -> WireOTPEnrolment {
        let backendHalf = Base64URL.encode(agreement.serverPublicKey)
        let message = SignedMessage.otpEnrolment(
            sessionId: sessionId, accountId: accountId, reference: reference,
            serverPublicKey: backendHalf, phonePublicKey: agreement.phonePublicKey)
        return WireOTPEnrolment(reference: reference, serverPublicKey: backendHalf, signature: Base64URL.encode(serverKey.sign(message)))
    }

    /// A random 30-bit reference no other account has.
    static func freeOTPReference(_ tx: BackendStore.Transaction) throws -> UInt32 {
        while true {
            let bytes = try Sodium.randomBytes(4)
            let reference = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } & (OfflineOTP.referenceCount - 1)
            if try !tx.isOTPReferenceTaken(reference) { return reference }
        }
    }

    // MARK: server flags

    public func serverFlags() async throws(BackendError) -> [String: Bool] {
        let stored = try await read { tx in try tx.serverFlags() }
        var flags = Dictionary(uniqueKeysWithValues: ServerFlag.allCases.map { ($0.rawValue, false) })
        for flag in stored where flags[flag.name] != nil { flags[flag.name] = flag.enabled }
        return flags
    }

    /// Sets the flags given; an unknown name changes nothing.
    public func setServerFlags(_ change: [String: Bool]) async throws(BackendError) -> [String: Bool] {
        if let unknown = change.keys.sorted().first(where: { ServerFlag(rawValue: $0) == nil }) {
            let names = ServerFlag.allCases.map(\.rawValue).joined(separator: ", ")
            throw BackendError(.badRequest, "UNKNOWN_SERVER_FLAG", "'\(unknown.prefix(64))' is not a server flag (there is: \(names))")
        }
        let time = now()
        try await write { tx in try tx.setServerFlags(change, at: time) }
        return try await serverFlags()
    }

    // MARK: otpLogin

    /// What a checked OTP led to; a refusal that counts is written before it is reported.
    private enum OTPCheck: Sendable {
        case loggedIn(SessionRecord)
        case rejected(failures: Int)
    }

    /// Logs a pending login in with an offline OTP (nextAuth's otpLogin). The session is marked
    /// `otplogin`; a wrong value counts against the account.
    public func otpLogin(sessionId: String, otp text: String) async throws(BackendError) -> BackendSession {
        let time = now()
        let otp: OfflineOTP
        do { otp = try OfflineOTP(parsing: text) } catch { throw BackendError(.badRequest, error.code, error.message) }
        let limit = configuration.maxOTPFailures
        let check = try await write { tx -> OTPCheck in
            guard try tx.isEnabled(.enableOTP) else {
                throw BackendError(.forbidden, "OTP_DISABLED", "offline OTP logins are off: the server flag ENABLE_OTP is not set")
            }
            guard var record = try tx.session(id: sessionId) else { throw BackendError.sessionNotFound(sessionId) }
            guard record.sessionType == .login else {
                throw BackendError(.conflict, "NOT_A_LOGIN", "the session is of the type \(record.type); only a login takes an OTP")
            }
            try record.machine.check(.otpAccepted, at: time)
            let reference = Crockford32.encode(UInt64(otp.reference), length: 6)
            guard var account = try tx.account(otpReference: otp.reference),
                let key = account.otpKey, account.userId == record.userId, record.accountId == nil || record.accountId == account.id
            else {
                throw BackendError(
                    .forbidden, "OTP_ACCOUNT_UNKNOWN",
                    "\(reference) is not the reference of an account of \(record.userId) with an offline OTP for this login")
            }
            guard account.otpFailures < limit else {
                throw BackendError(
                    .tooManyRequests, "OTP_LOCKED",
                    "\(limit) wrong OTPs in a row for this account: its OTP is locked until it logs in online")
            }
            let current = OfflineOTP.step(at: time)
            let accepted = [current, current - 1].first { step in
                step > (account.otpLastStep ?? Int64.min)
                    && OfflineOTP.value(key: Array(key), sessionData: record.token, reference: otp.reference, step: step) == otp.value
            }
            guard let step = accepted else {
                account.otpFailures += 1
                try tx.update(account)
                return .rejected(failures: account.otpFailures)
            }
            account.otpFailures = 0
            account.otpLastStep = step
            try tx.update(account)
            _ = try record.handle(.otpAccepted, at: time)
            record.otplogin = true
            record.accountId = account.id
            try tx.update(record)
            return .loggedIn(record)
        }
        switch check {
        case .loggedIn(let record):
            return publish(record)
        case .rejected(let failures):
            throw BackendError(
                .forbidden, "OTP_REJECTED",
                "the OTP is wrong, was used already, or is older than the previous 2-minute step (\(failures) of \(limit) wrong in a row)")
        }
    }
}
