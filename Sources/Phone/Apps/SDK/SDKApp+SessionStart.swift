import AuthFlow
import BackendAPI
import Foundation
import Identifiers
import OTP
import OutOfBand
import Retry
import SodiumKit

/// A scanned session before its flow (docs/behaviour.md#offline-otp): the lifecycle, the payload it came from (whose
/// token is the OTP's session data) and the background retry, if one is planned.
struct StartingSession: Sendable {
    var session: SessionStart
    let payload: OutOfBandPayload
    /// The phone's `otpCountdown` when the code was scanned.
    let countdown: Int
    var retry: Task<Void, Never>?
}

extension SDKApp {
    /// STARTING: the screen hears at once whether an OTP can be had, before any connection.
    func announceSessionStart(_ phoneId: String, payload: OutOfBandPayload, accounts: [AccountRecord], countdown: Int) {
        let redeemURL = payload.redeemData.redeemURL
        let server = origin(of: redeemURL) ?? redeemURL.absoluteString
        let atServer = accounts.filter { URL(string: $0.serverURL).flatMap(origin(of:)) == server }
        phones[phoneId]?.sessionStart?.retry?.cancel()
        phones[phoneId, default: SDKPhone()].sessionStart = StartingSession(
            session: SessionStart(id: UUID.random().uuidString.lowercased(), server: server, accounts: atServer.map(\.summary)),
            payload: payload, countdown: countdown)
        publishSessionStart(phoneId)
    }

    /// One attempt to fetch the scanned session. The flow starts if it arrives while the session
    /// is still STARTING; a failure that may pass plans the next attempt in the background.
    func fetchSessionAndStartFlow(
        _ phoneId: String, payload: OutOfBandPayload,
        local: (PhoneRecord, [AccountRecord])
    ) async throws(PhoneError) -> Flow {
        let prepared: PreparedFlow
        do { prepared = try await redeemAndCheck(phoneId, payload: payload, local: local) } catch {
            sessionFetchFailed(phoneId, error)
            throw error
        }
        guard var entry = phones[phoneId]?.sessionStart, entry.session.fetched() else {
            let reason = phones[phoneId]?.sessionStart?.session.stopReason ?? "stopped"
            // A generated OTP still needs the session at the backend; a cancel ends it there too.
            if reason == FlowError.userCanceled.code {
                try? await abandon(prepared.response.sessionId, at: prepared.response.server.url, code: reason, phone: prepared.phone)
            }
            throw PhoneError(.conflict, "SESSION_STOPPED", "the session was stopped on the phone (\(reason)) before it arrived")
        }
        // no cancel: the planned retry, if any, is the task running this
        entry.retry = nil
        phones[phoneId, default: SDKPhone()].sessionStart = entry
        publishSessionStart(phoneId)
        return await beginFlow(phoneId, prepared)
    }

    private func sessionFetchFailed(_ phoneId: String, _ error: PhoneError) {
        guard var entry = phones[phoneId]?.sessionStart else { return }
        let wait = configuration.sessionFetchRetry.wait(
            beforeRetry: entry.session.attempts + 1, unit: configuration.random(),
            retryAfter: error.retryAfter)
        let action = entry.session.fetchFailed(
            error.flowError, connection: error.isRetryable, retryIn: wait?.seconds,
            phoneOffline: device.network.isOffline(phoneId: phoneId), countdown: TimeInterval(entry.countdown), now: device.now())
        if case .fetchAfter = action, let wait {
            configuration.retryObserver("sessionFetch")
            let sleep = configuration.sleep
            entry.retry = Task { [weak self] in
                do { try await sleep(wait) } catch { return }
                await self?.retrySessionFetch(phoneId)
            }
        }
        phones[phoneId, default: SDKPhone()].sessionStart = entry
        publishSessionStart(phoneId)
    }

    /// What kept the backends away was lifted (a fault cleared): each session waiting out its
    /// back-off tries again now, not when its wait of up to 30 s ends.
    public func retryWaitingSessionsNow() {
        for (phoneId, phone) in phones {
            guard var entry = phone.sessionStart, entry.session.state == .starting, let planned = entry.retry else { continue }
            planned.cancel()
            entry.retry = Task { [weak self] in await self?.retrySessionFetch(phoneId) }
            phones[phoneId]?.sessionStart = entry
        }
    }

    /// While the session is STARTING nothing else can start on the phone (`refuseDuringFlow`),
    /// so the retry needs no guard of its own. Once it fetches, it no longer waits: nothing calls
    /// it off (a request in flight is not cut), and a failure plans the next.
    private func retrySessionFetch(_ phoneId: String) async {
        guard !Task.isCancelled, phones[phoneId]?.sessionStart?.session.state == .starting else { return }
        phones[phoneId]?.sessionStart?.retry = nil
        guard let entry = phones[phoneId]?.sessionStart, let local = try? await device.phoneAndAccounts(phoneId) else { return }
        _ = try? await fetchSessionAndStartFlow(phoneId, payload: entry.payload, local: local)
    }

    /// nextAuth's generateOTP(session, account): the only moment the OTP is computed. The
    /// session then stops, so a connection that comes back cannot start a second login.
    public func generateOTP(phoneId: String, accountId: String?) async throws(PhoneError) -> SessionStart {
        let (_, accounts) = try await device.phoneAndAccounts(phoneId)
        guard var entry = phones[phoneId]?.sessionStart else {
            throw PhoneError(.conflict, "OTP_NOT_AVAILABLE", "no scanned session is starting on this phone; scan a login QR code first")
        }
        let chosen: AccountSummary
        do { chosen = try entry.session.otpAccount(accountId) } catch {
            throw PhoneError(error.code == "OTP_NOT_AVAILABLE" ? .conflict : .badRequest, error.code, error.message)
        }
        guard let account = accounts.first(where: { $0.id == chosen.id }) else {
            throw PhoneError(.conflict, "ACCOUNT_NOT_FOUND", "the account \(chosen.id) was removed from this phone since the code was scanned")
        }
        guard let key = account.otpKey, let reference = account.otpReference else {
            throw PhoneError(.conflict, "OTP_NOT_SET_UP", "the account \(chosen.id) has no offline OTP key (its server gave none at enrolment)")
        }
        let otp = OfflineOTP.generate(key: Array(key), sessionData: entry.payload.redeemData.token, reference: reference, at: device.now())
        entry.session.otpGenerated(otp.description, accountId: account.id)
        storeStopped(entry, phoneId)
        return entry.session
    }

    /// Cancels a scanned session still starting; false when there is none.
    func cancelSessionStart(_ phoneId: String) -> Bool {
        guard var entry = phones[phoneId]?.sessionStart, (try? entry.session.cancel()) != nil else { return false }
        storeStopped(entry, phoneId)
        return true
    }

    /// The session stopped: the planned retry is called off and the screen hears it.
    private func storeStopped(_ entry: StartingSession, _ phoneId: String) {
        var stopped = entry
        stopped.retry?.cancel()
        stopped.retry = nil
        phones[phoneId, default: SDKPhone()].sessionStart = stopped
        publishSessionStart(phoneId)
    }

    private func publishSessionStart(_ phoneId: String) {
        if let session = phones[phoneId]?.sessionStart?.session { device.screen.send(.session(session), to: phoneId) }
    }
}
