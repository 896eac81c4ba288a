import BackendAPI
import Foundation
import Identifiers
import OutOfBand
import Retry

/// The console's side of a session: starting it, handing it to the phone as QR code, link or
/// push, and showing how it stands.
extension DemoBackend {
    /// How a session reaches the phone: shown as QR code and link, or pushed (to the given
    /// registration token, or else to every device the user enrolled).
    public enum Delivery: Sendable, Equatable {
        case qr
        case push(token: String?)
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
            delivery: delivery == .qr ? "qr" : "push", dispatch: nil, transactionText: transaction,
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
                throw BackendError(.notFound, "USER_NOT_ENROLLED", "the user \(userId) has no account here for a \(type.rawValue)")
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

    /// Sends the session's payload through the FCM v1 API and records how it went.
    private func dispatch(_ record: SessionRecord, to explicitToken: String?) async throws(BackendError) -> BackendSession {
        let userId = record.userId
        let tokens: [String]
        if let explicitToken {
            tokens = [explicitToken]
        } else {
            tokens = try await read { tx in try tx.pushTokens(ofUser: userId) }
        }
        let base = configuration.pushURL ?? baseURL()
        let (title, body): (String, String) =
            switch record.sessionType {
            case .login: ("Log in to \(configuration.serverName)?", "Confirm the login of \(record.userId) on this phone.")
            case .transaction: ("Confirm a transaction at \(configuration.serverName)", "A transaction for \(record.userId) waits for you.")
            default: ("Add an account at \(configuration.serverName)", "Enrol \(record.displayName) on this phone.")
            }
        var results: [String] = []
        for token in tokens {
            let message = FCMSend(token: token, data: PushMessage.data(for: payload(for: record)), title: title, body: body)
            let url = base + FCMSend.path(project: configuration.pushProject)
            let sessionId = record.id
            let (sent, attempts) = await pushRetrying.run { [self] attempt -> AttemptOutcome<Bool> in
                var label = WireExchange.Label(from: .backend, to: .push, sessionId: sessionId, pushToken: token, attempt: attempt)
                switch await pushFault() {
                case .struck(let outcome, let fault):
                    label.fault = fault
                    if let bytes = try? WireHTTPClient.encode(message) { wire.recordStruck(url, bytes: bytes, label: label, error: fault) }
                    return outcome
                case .late(let fault):
                    label.fault = fault
                case nil:
                    break
                }
                return await Self.send(message, to: url, wire: wire, label: label)
            }
            results.append(sent != nil ? "dispatched" : attempts.last?.outcome ?? "dispatchError")
        }
        let outcome = results.isEmpty ? "dispatchTargetNotFound" : results.contains("dispatched") ? "dispatched" : results[0]
        let time = now()
        let final = try await write { tx -> SessionRecord in
            try tx.recordDispatch(outcome, sessionId: record.id, at: time)
            return try tx.session(id: record.id) ?? record
        }
        return publish(final)
    }

    /// One FCM send, judged as FCM's documentation says: 429, 500, 503 and no answer may succeed
    /// later (honouring Retry-After); UNREGISTERED and other refusals will not.
    private static func send(_ message: FCMSend, to url: String, wire: WireHTTPClient, label: WireExchange.Label) async -> AttemptOutcome<Bool> {
        let answer: WireHTTPClient.Answer
        do { answer = try await wire.post(url, json: message, label: label) } catch {
            return .retryable(reason: "dispatchError: \(error.description)", retryAfter: nil)
        }
        if answer.isSuccess { return .success(true) }
        let code = (try? answer.decode(FCMErrorBody.self))?.error.details.first?.errorCode ?? "HTTP \(answer.status)"
        if HTTPRetry.statuses.contains(Int(answer.status)) {
            return .retryable(reason: "dispatchError: \(code)", retryAfter: answer.retryAfter)
        }
        return .failure(reason: code == "UNREGISTERED" ? "dispatchTargetExpired" : "dispatchError: \(code)")
    }

    /// What a fault set on the push service did to one send: stopped it (with the attempt's
    /// outcome), or only made it late; both in words for the timeline.
    private enum PushFault {
        case struck(AttemptOutcome<Bool>, String)
        case late(String)

        /// The send's outcome and the timeline's text read off one fault text.
        static func struck(retryable: Bool, _ fault: String, retryAfter: Duration? = nil) -> PushFault {
            let reason = "dispatchError: \(fault)"
            return .struck(retryable ? .retryable(reason: reason, retryAfter: retryAfter) : .failure(reason: reason), fault)
        }
    }

    /// A fault set on the push service strikes the backend's send as the network would; a late
    /// answer lets the send go on.
    private func pushFault() async -> PushFault? {
        guard let faults, let fault = faults.strike([.push], requests: true) else { return nil }
        switch fault {
        case .unreachable:
            return .struck(retryable: true, "connection refused (a fault set on purpose)")
        case .hang:
            try? await sleep(.seconds(10))
            return .struck(retryable: true, "no answer (a fault set on purpose)")
        case .status(let code, let retryAfter):
            return .struck(
                retryable: HTTPRetry.statuses.contains(code), "HTTP \(code) (a fault set on purpose)", retryAfter: retryAfter.map { .seconds($0) }
            )
        case .latency(let minimum, let maximum):
            let delay = faults.latency(minimum, maximum)
            try? await sleep(delay)
            return .late("latency of \(delay) (a fault set on purpose)")
        case .dropPush, .delayPush, .offline:
            return nil
        }
    }

    /// The part of FCM's error answer the backend reads.
    private struct FCMErrorBody: Decodable {
        struct Inner: Decodable {
            struct Detail: Decodable { let errorCode: String }
            let details: [Detail]
        }
        let error: Inner
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
