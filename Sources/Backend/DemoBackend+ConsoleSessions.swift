import BackendAPI
import Foundation
import Identifiers
import OutOfBand
import Retry

/// The console's side of a session: starting it, handing it to the phone as QR code, link or
/// push, and showing how it stands.
extension DemoBackend {
    /// How a session reaches the phone: shown as QR code and link, pushed (to the given
    /// registration token, or else to every device the user enrolled), or pushed by someone
    /// else through the push service (the console's push composer, a script), which the
    /// backend does not send but shows as a push.
    public enum Delivery: Sendable, Equatable {
        case qr
        case push(token: String?)
        case external

        var name: String {
            switch self {
            case .qr: "qr"
            case .push: "push"
            case .external: "external"
            }
        }
    }

    /// Starts a session. A login or transaction may pre-select one of the user's accounts; a
    /// transaction needs its text and a user with an account here. `announceInfo` and
    /// `announceLogo` are what the phone shows with it (seed 001), instead of the server's name
    /// and the user. `skipConfirmation` (login, transaction) and `skipSecondFactor` (login) are
    /// the steps the configuration skips (seed 001); nil takes the server flag's default.
    public func createSession(
        type: WireSessionType, userId: String, displayName: String?, transaction: String? = nil,
        accountId: String? = nil, delivery: Delivery = .qr, announceInfo: [String: String]? = nil, announceLogo: String? = nil,
        skipConfirmation: Bool? = nil, skipSecondFactor: Bool? = nil
    ) async throws(BackendError) -> BackendSession {
        let userId = userId.trimmingCharacters(in: .whitespaces)
        try Self.checkName(userId, field: "userId", limit: 128)
        let name = (displayName?.trimmingCharacters(in: .whitespaces)).flatMap { $0.isEmpty ? nil : $0 } ?? userId
        try Self.checkName(name, field: "displayName", limit: 128)
        switch (type, transaction) {
        case (.transaction, nil): throw BackendError.invalid("transaction", "is required for a transaction")
        case (.transaction, let text?): try Self.checkText(text, field: "transaction", limit: ReadableText.maximumTransactionLength)
        case (_, .some): throw BackendError.invalid("transaction", "goes only with the type transaction")
        case (_, nil): break
        }
        if WireSessionType.management.contains(type) {
            throw BackendError.invalid("type", "\(type.rawValue) is started by the phone itself, not by the backend")
        }
        if accountId != nil, type == .enrol { throw BackendError.invalid("accountId", "cannot be chosen for an enrolment") }
        if let announceInfo, let problem = Announcement.problem(in: announceInfo) { throw BackendError.invalid("announceInfo", problem) }
        if let announceLogo, let problem = Announcement.logoProblem(announceLogo) { throw BackendError.invalid("announceLogo", problem) }
        let confirmationSkippable = type == .login || type == .transaction
        if skipConfirmation == true, !confirmationSkippable {
            throw BackendError.invalid("skipConfirmation", "goes only with a login or a transaction: an enrolment needs the user's consent")
        }
        if skipSecondFactor == true, type != .login {
            throw BackendError.invalid(
                "skipSecondFactor", "goes only with a login: an enrolment sets a PIN and a transaction's second factor cannot be skipped")
        }
        let created = now()
        let record = SessionRecord(
            id: UUID.random().uuidString.lowercased(), type: type.rawValue, userId: userId, displayName: name,
            token: try Self.randomToken(), status: SessionMachine.initialStatus(of: type), challenge: try Self.randomToken(),
            deviceId: nil, accountId: accountId, failure: nil, otplogin: false,
            createdAt: created, expiresAt: created.addingTimeInterval(configuration.sessionLifetime), updatedAt: created,
            delivery: delivery.name, dispatch: nil, transactionText: transaction,
            announceInfo: announceInfo, announceLogo: announceLogo)
        let stored = try await write { tx -> SessionRecord in
            var stored = record
            stored.skipConfirmation = try skipConfirmation ?? (confirmationSkippable && tx.isEnabled(.skipConfirmation))
            stored.skipSecondFactor = try skipSecondFactor ?? (type == .login && tx.isEnabled(.skipSecondFactor))
            if let accountId {
                guard let account = try tx.account(id: accountId), account.userId == userId else {
                    throw BackendError(.notFound, "ACCOUNT_NOT_FOUND", "the user \(userId) has no account \(accountId)")
                }
            } else if type != .enrol, try !tx.hasAccounts(ofUser: userId) {
                // said at once: no phone could ever answer it, so it would only wait to expire
                throw BackendError.userNotEnrolled(userId, for: " for a \(type.rawValue)")
            }
            try tx.insert(stored)
            return stored
        }
        guard case .push(let token) = delivery else { return publish(stored) }
        notify(stored)
        return try await dispatch(stored, to: token)
    }

    /// The console's "Push to phone": a session still waiting for its phone is pushed (again) to
    /// one registration token, as if it had been started for push; the session is otherwise
    /// unchanged, so a push that fails leaves the QR code as good as before.
    public func pushSession(id: String, to token: String) async throws(BackendError) -> BackendSession {
        guard (1...4096).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw BackendError.invalid("pushToken", "must be 1 to 4096 printable ASCII characters")
        }
        guard let record = try await read({ tx in try tx.session(id: id) }) else { throw BackendError.sessionNotFound(id) }
        try record.machine.check(.pushed, at: now())
        return try await dispatch(record, to: token)
    }

    public func session(id: String) async throws(BackendError) -> BackendSession {
        guard let record = try await read({ tx in try tx.session(id: id) }) else { throw BackendError.sessionNotFound(id) }
        return view(record, at: now())
    }

    public func recentSessions(limit: Int = 50) async throws(BackendError) -> [BackendSession] {
        let records = try await read { tx in try tx.recentSessions(limit: limit) }
        let time = now()
        return records.map { view($0, at: time) }
    }

    public func qrCodeSVG(sessionId: String) async throws(BackendError) -> String {
        let session = try await session(id: sessionId)
        do { return try QRCode(session.qrText).svg() } catch {
            throw BackendError(.unavailable, "QR_ENCODING_FAILED", error.message)
        }
    }
}
