import AuthFlow
import BackendAPI
import BlockingWork
import Foundation
import PrivacyIDEA
import Retry
import Synchronization

/// The phone as privacyIDEA's authenticator app (docs/privacyidea.md): it enrols push tokens from
/// privacyIDEA's QR code, takes their challenges by push or poll, checks privacyIDEA's signature
/// and answers with its own. One request at a time per phone, on screen through `PhoneEvent.privacyIDEA`.
extension PhoneService {
    /// What the phone holds of a request while it is on screen.
    enum PendingPrivacyIDEA: Sendable {
        case enrolment(PushEnrolment)
        case challenge(PushChallenge, receivedAt: Date)
    }

    public func pushTokens(phoneId: String) async throws(PhoneError) -> [PushTokenSummary] {
        _ = try await phoneAndAccounts(phoneId)
        return try await store.pushTokens(phoneId: phoneId).map(PushTokenSummary.init)
    }

    public func deletePushToken(phoneId: String, serial: String) async throws(PhoneError) {
        _ = try await phoneAndAccounts(phoneId)
        guard try await store.deletePushToken(phoneId: phoneId, serial: serial) else { throw .unknownSerial(serial) }
        await announcePushTokens(phoneId)
    }

    /// Tells the phone's screens its token list after a change.
    private func announcePushTokens(_ phoneId: String) async {
        if let tokens = try? await pushTokens(phoneId: phoneId) { events.send(.pushTokens(tokens), to: phoneId) }
    }

    public func privacyIDEARequest(phoneId: String) -> PrivacyIDEARequest? { privacyIDEAScreens[phoneId] }

    /// A scanned privacyIDEA enrolment code: registered at once with a server the user accepted
    /// before, otherwise the phone first asks (as the seeds' server confirmation does).
    public func startPushEnrolment(phoneId: String, text: String) async throws(PhoneError) -> PrivacyIDEARequest {
        let enrolment: PushEnrolment
        do { enrolment = try PushEnrolment(text: text) } catch { throw PhoneError(.badRequest, error.code, error.message) }
        _ = try await phoneAndAccounts(phoneId)
        try refuseWhileWaiting(phoneId)
        show(
            phoneId,
            PrivacyIDEARequest(
                kind: .enrolment, state: .waitForInput, serial: enrolment.serial, label: enrolment.label, issuer: enrolment.issuer,
                origin: enrolment.origin), pending: .enrolment(enrolment))
        if try await store.isAccepted(origin: enrolment.origin, phoneId: phoneId) {
            return await registering(enrolment, phoneId: phoneId)
        }
        return privacyIDEAScreens[phoneId]!
    }

    /// The user's answer to what is on screen: for an enrolment, whether to trust the server;
    /// for a challenge, accept (with the presence option picked, and the phone unlocked where
    /// asked) or decline (saying why, where privacyIDEA takes a reason).
    public func answerPrivacyIDEA(
        phoneId: String, accept: Bool, presence: String?, declineReason: DeclineReason? = nil, unlock: Unlock? = nil
    ) async throws(PhoneError) -> PrivacyIDEARequest {
        let phone = try await phoneAndAccounts(phoneId).0
        guard let pending = privacyIDEAPending[phoneId], let screen = privacyIDEAScreens[phoneId], screen.state == .waitForInput else {
            throw .noPrivacyIDEARequest
        }
        switch pending {
        case .enrolment(let enrolment):
            guard presence == nil else { throw .invalid("presence", "goes only with a challenge that asks for it") }
            guard declineReason == nil else { throw .invalid("declineReason", "goes only with a declined challenge") }
            try await checkUnlock(unlock, accept: accept, offered: nil, phone: phone)
            guard accept else {
                finish(phoneId) { $0.outcome = .cancelled }
                return privacyIDEAScreens[phoneId]!
            }
            // the server is trusted once the registration succeeds (`register`), not before
            return await registering(enrolment, phoneId: phoneId)
        case .challenge(let challenge, let receivedAt):
            let answer = try Self.answer(accept: accept, presence: presence, declineReason: declineReason, to: challenge)
            try await checkUnlock(unlock, accept: accept, offered: screen.unlockWith, phone: phone)
            // the PIN's check awaited: only the challenge still waiting on screen is answered
            guard let onScreen = privacyIDEAScreens[phoneId], onScreen.nonce == challenge.nonce, onScreen.state == .waitForInput else {
                throw .noPrivacyIDEARequest
            }
            guard now().timeIntervalSince(receivedAt) <= Double(PushChallenge.lifetime.components.seconds) else {
                finish(phoneId) { $0.error = PhoneError.challengeExpired.flowError }
                throw .challengeExpired
            }
            await send(answer, to: challenge, phoneId: phoneId)
        }
        return privacyIDEAScreens[phoneId]!
    }

    /// A challenge from privacyIDEA (an FCM message's data, or one entry of a poll's answer):
    /// shown only when the token is this phone's, privacyIDEA signed it as it stands, it names
    /// the token's own server and it was not answered before. A forged one is shown as refused.
    public func receivePushChallenge(phoneId: String, fields: [String: String]) async throws(PhoneError) -> PrivacyIDEARequest {
        // a pushed challenge is always shown or refused, never skipped
        try await receiveChallenge(phoneId: phoneId, fields: fields, polled: false)!
    }

    /// The same for fields as a push or a poll's JSON gives them (their values not yet known to be
    /// text). A poll lists what privacyIDEA still holds open: a challenge this phone answered
    /// meanwhile is skipped (nil) rather than refused, and the one on screen stays as it is.
    private func receiveChallenge(phoneId: String, fields: [String: Any], polled: Bool) async throws(PhoneError) -> PrivacyIDEARequest? {
        let unverified: PushChallenge
        do { unverified = try PushChallenge(fields: fields) } catch { throw PhoneError(.badRequest, error.code, error.message) }
        guard let token = try await store.pushToken(phoneId: phoneId, serial: unverified.serial) else {
            throw .unknownSerial(unverified.serial)
        }
        var screen = PrivacyIDEARequest(
            kind: .challenge, state: .waitForInput, serial: token.serial, label: token.label, issuer: token.issuer, origin: token.origin,
            title: unverified.title, question: unverified.question, presenceOptions: unverified.presenceOptions, nonce: unverified.nonce)
        if let onScreen = privacyIDEAScreens[phoneId], onScreen.nonce == unverified.nonce, onScreen.serial == token.serial, polled {
            return onScreen
        }
        let challenge: PushChallenge
        do throws(PrivacyIDEAError) {
            challenge = try unverified.verified(by: try PrivacyIDEAServerKey(token.serverKey))
            guard let url = URL(string: challenge.url), origin(of: url) == token.origin else {
                throw PrivacyIDEAError(code: "PUSH_CHALLENGE_FORGED", message: "the challenge names another server than its token's")
            }
        } catch {
            screen.state = .error
            screen.error = FlowError(code: error.code, message: error.message)
            if privacyIDEAScreens[phoneId]?.state != .waitForInput { show(phoneId, screen, pending: nil) }
            throw PhoneError(.badRequest, error.code, error.message)
        }
        guard try await !store.wasAnswered(phoneId: phoneId, serial: challenge.serial, nonce: challenge.nonce) else {
            if polled { return nil }
            throw PhoneError(.conflict, "CHALLENGE_REPLAYED", "the challenge \(challenge.nonce) was answered before")
        }
        // a poll's newest challenge takes the place of an older one of the same token waiting on screen
        let olderOnScreen = privacyIDEAScreens[phoneId].map { $0.kind == .challenge && $0.serial == token.serial && $0.state == .waitForInput }
        if !(polled && olderOnScreen == true) { try refuseWhileWaiting(phoneId, unless: challenge.nonce) }
        screen.declineReasons = challenge.takesDeclineReason ? DeclineReason.allCases : nil
        let phone = try await phoneAndAccounts(phoneId).0
        if token.requiresUnlock || phone.unlockPushTokens {
            screen.unlockWith = (phone.pinPublicKey != nil ? [.pin] : []) + (phone.biometricsCanBeSet ? [.biometric] : [])
        }
        show(phoneId, screen, pending: .challenge(challenge, receivedAt: now()))
        return await answerPrivacyIDEAAutomatically(phoneId) ?? screen
    }

    /// Asks privacyIDEA for the token's open challenges, as the app's poll does, and shows the
    /// newest; nil when there is none. A user who tried to log in again left the older open at
    /// privacyIDEA: it is not shown, so that accepting approves the login the user is in.
    public func pollPrivacyIDEA(phoneId: String, serial: String) async throws(PhoneError) -> PrivacyIDEARequest? {
        _ = try await phoneAndAccounts(phoneId)
        guard let token = try await store.pushToken(phoneId: phoneId, serial: serial) else { throw .unknownSerial(serial) }
        let key = try Self.tokenKey(token)
        let fields: PushTokenRequests.Fields
        do { fields = try PushTokenRequests.poll(serial: serial, at: now(), key: key) } catch { throw .crypto(error.message) }
        let answer = try await privacyIDEA(
            "GET", token.url + "?" + PushTokenRequests.encoded(fields), form: nil, sslVerify: token.sslVerify, phoneId: phoneId)
        let challenges: [[String: Any]]
        do { challenges = try PrivacyIDEAAnswers.challenges(answer) } catch { throw .privacyIDEARefused(error.message) }
        // privacyIDEA lists them in the order it made them; one this phone answered meanwhile is skipped
        for fields in challenges.reversed() {
            if let shown = try await receiveChallenge(phoneId: phoneId, fields: fields, polled: true) { return shown }
        }
        return nil
    }

    // MARK: the exchanges

    /// Starts the registration and answers with the screen once it has ended or waits to try
    /// again: a reachable privacyIDEA's answer comes back at once, an unreachable one's retries go
    /// on by themselves, each on the screen.
    private func registering(_ enrolment: PushEnrolment, phoneId: String) async -> PrivacyIDEARequest {
        update(phoneId) { $0.state = .processing }
        let screens = events.subscribe(phoneId)
        Task { await self.register(enrolment, phoneId: phoneId) }
        for await case .privacyIDEA(let screen) in screens where screen.state.isFinal || screen.nextAttemptIn != nil {
            return screen
        }
        return privacyIDEAScreens[phoneId]!
    }

    private func register(_ enrolment: PushEnrolment, phoneId: String) async {
        do throws(PhoneError) {
            let phone = try await phoneAndAccounts(phoneId).0
            let key = try await newTokenKey()
            let form = PushTokenRequests.registration(enrolment, fcmToken: phone.fcmToken, key: key)
            let answer = try await retried(phoneId: phoneId) { () async throws(PhoneError) -> Data in
                try await self.privacyIDEA("POST", enrolment.url.absoluteString, form: form, sslVerify: enrolment.sslVerify, phoneId: phoneId)
            }
            let serverKey: PrivacyIDEAServerKey
            do { serverKey = try PrivacyIDEAAnswers.serverKey(answer) } catch { throw PhoneError.privacyIDEARefused(error.message) }
            try await store.keep(
                PushTokenRecord(
                    phoneId: phoneId, serial: enrolment.serial, label: enrolment.label, issuer: enrolment.issuer,
                    url: enrolment.url.absoluteString, origin: enrolment.origin, sslVerify: enrolment.sslVerify, pollOnly: enrolment.pollOnly,
                    requiresUnlock: enrolment.requiresUnlock, tokenKey: key.pkcs8, serverKey: serverKey.text, fcmToken: phone.fcmToken,
                    createdAt: now()), trusting: enrolment.origin)
            await announcePushTokens(phoneId)
            finish(phoneId) { $0.outcome = .enrolled }
        } catch {
            finish(phoneId) { $0.error = error.flowError }
        }
    }

    private func send(_ answer: PushAnswer, to challenge: PushChallenge, phoneId: String) async {
        update(phoneId) { $0.state = .processing }
        do throws(PhoneError) {
            guard let token = try await store.pushToken(phoneId: phoneId, serial: challenge.serial) else {
                throw PhoneError.unknownSerial(challenge.serial)
            }
            let key = try Self.tokenKey(token)
            let form: PushTokenRequests.Fields
            do { form = try PushTokenRequests.answer(challenge, answer, key: key) } catch { throw PhoneError.crypto(error.message) }
            guard try await store.noteAnswered(phoneId: phoneId, serial: challenge.serial, nonce: challenge.nonce, at: now()) else {
                throw PhoneError(.conflict, "CHALLENGE_REPLAYED", "the challenge \(challenge.nonce) was answered before")
            }
            let reply = try await privacyIDEA("POST", challenge.url, form: form, sslVerify: token.sslVerify, phoneId: phoneId)
            let matched: Bool
            do { matched = try PrivacyIDEAAnswers.accepted(reply) } catch { throw PhoneError.privacyIDEARefused(error.message) }
            guard matched else { throw PhoneError.privacyIDEARefused("privacyIDEA found no open challenge that this answer fits") }
            finish(phoneId) { screen in
                if case .decline(let reason) = answer {
                    screen.outcome = .declined
                    screen.declineReason = reason
                } else {
                    screen.outcome = .accepted
                }
            }
        } catch {
            finish(phoneId) { $0.error = error.flowError }
        }
    }

    /// An exchange under the phone's retry policy for what it does by itself: a privacyIDEA that
    /// cannot be reached is tried again, each wait on the screen ("attempt 2 of 4, next in 2 s"),
    /// and only a refusal or the last failure ends the request.
    private func retried(phoneId: String, _ exchange: @escaping @Sendable () async throws(PhoneError) -> Data) async throws(PhoneError) -> Data {
        let observer = configuration.retryObserver
        let retrying = Retrying(
            policy: configuration.deviceChangeRetry, sleep: configuration.sleep, random: configuration.random,
            onRetry: { observer("privacyIDEA") })
        let lastRefusal = Mutex<PhoneError?>(nil)
        let (answer, attempts) = await retrying.run { _ -> AttemptOutcome<Data> in
            do throws(PhoneError) { return .success(try await exchange()) } catch {
                lastRefusal.withLock { $0 = error }
                let reason = "\(error.code): \(error.message)"
                return error.isRetryable ? .retryable(reason: reason, retryAfter: error.retryAfter) : .failure(reason: reason)
            }
        } observe: { [weak self] record, nextWait in
            await self?.update(phoneId) { screen in
                screen.attempt = record.number
                screen.maxAttempts = retrying.policy.maxRetries + 1
                screen.nextAttemptIn = nextWait?.seconds
            }
        }
        if let answer { return answer }
        let refusal = lastRefusal.withLock { $0 } ?? .serverConnection("no attempt was made")
        guard refusal.isRetryable else { throw refusal }
        throw PhoneError(
            .badGateway, refusal.code, "privacyIDEA could not be reached in \(attempts.count) attempts: \(refusal.message)",
            sdkCode: refusal.sdkCode)
    }

    /// Tells the token's privacyIDEA the phone's new FCM token, signed with the token's key; part
    /// of a device information change, under its retry policy.
    nonisolated func updateFCMToken(_ token: PushTokenRecord, to fcmToken: String, at time: Date) async throws(PhoneError) {
        let key = try Self.tokenKey(token)
        let form: PushTokenRequests.Fields
        do { form = try PushTokenRequests.fcmTokenUpdate(serial: token.serial, newToken: fcmToken, at: time, key: key) } catch {
            throw .crypto(error.message)
        }
        let answer = try await privacyIDEA("POST", token.url, form: form, sslVerify: token.sslVerify, phoneId: token.phoneId)
        let updated: Bool
        do { updated = try PrivacyIDEAAnswers.accepted(answer) } catch { throw .privacyIDEARefused(error.message) }
        guard updated else { throw .privacyIDEARefused("privacyIDEA did not take the new FCM token for \(token.serial)") }
    }

    /// One exchange with a privacyIDEA server, on the timeline like the backend's; a server that
    /// does not answer, or answers with a status privacyIDEA uses for refusals, is an error here.
    private nonisolated func privacyIDEA(
        _ method: String, _ url: String, form: PushTokenRequests.Fields?, sslVerify: Bool, phoneId: String
    ) async throws(PhoneError) -> Data {
        let wire = sslVerify ? privacyIDEAWire : privacyIDEAWire.withoutCertificateChecks
        let answer: WireHTTPClient.Answer
        do {
            answer = try await wire.send(
                method, url, contentType: form == nil ? nil : "application/x-www-form-urlencoded",
                bytes: Data((form.map(PushTokenRequests.encoded) ?? "").utf8), label: .init(from: .phone, to: .backend, phoneId: phoneId))
        } catch {
            throw error.timedOut ? .serverTimeout(error.description) : .serverConnection(error.description)
        }
        let body = Data(buffer: answer.body)
        guard answer.isSuccess || answer.status == 400 else {
            do { _ = try PrivacyIDEAAnswers.result(body) } catch { throw .privacyIDEARefused(error.message) }
            throw .privacyIDEARefused("privacyIDEA answered HTTP \(answer.status)")
        }
        return body
    }

    // MARK: the screen

    private func refuseWhileWaiting(_ phoneId: String, unless nonce: String? = nil) throws(PhoneError) {
        guard let screen = privacyIDEAScreens[phoneId], screen.state == .waitForInput || screen.state == .processing,
            nonce == nil || screen.nonce != nonce
        else { return }
        throw PhoneError(.conflict, "PRIVACYIDEA_REQUEST_OPEN", "this phone is showing another privacyIDEA request; answer it first")
    }

    private func show(_ phoneId: String, _ screen: PrivacyIDEARequest, pending: PendingPrivacyIDEA?) {
        privacyIDEAScreens[phoneId] = screen
        privacyIDEAPending[phoneId] = pending
        events.send(.privacyIDEA(screen), to: phoneId)
    }

    private func update(_ phoneId: String, _ change: (inout PrivacyIDEARequest) -> Void) {
        guard var screen = privacyIDEAScreens[phoneId] else { return }
        change(&screen)
        show(phoneId, screen, pending: privacyIDEAPending[phoneId])
    }

    /// Ends the request: DONE with its outcome, or ERROR when `change` set an error.
    private func finish(_ phoneId: String, _ change: (inout PrivacyIDEARequest) -> Void) {
        guard var screen = privacyIDEAScreens[phoneId] else { return }
        change(&screen)
        screen.state = screen.error == nil ? .done : .error
        show(phoneId, screen, pending: nil)
    }

    // MARK: keys

    /// A 4096-bit RSA key holds a core for up to a second: made in the key lane, never on the
    /// actor nor on the threads that answer requests.
    nonisolated func newTokenKey() async throws(PhoneError) -> PushTokenKey {
        guard let lane = configuration.keyLane else {
            do { return try PushTokenKey.generate() } catch { throw .crypto(error.message) }
        }
        do {
            return try await lane.run { _ in try PushTokenKey.generate() }
        } catch let busy as WorkLane.Busy {
            throw .busy(retryAfter: busy.retryAfter, doing: "privacyIDEA tokens are being made", retry: "scan the code again")
        } catch let refusal as PrivacyIDEAError {
            throw .crypto(refusal.message)
        } catch {
            throw .crypto("\(error)")
        }
    }

    static func tokenKey(_ token: PushTokenRecord) throws(PhoneError) -> PushTokenKey {
        do { return try PushTokenKey(pkcs8: token.tokenKey) } catch { throw .crypto(error.message) }
    }
}

extension PhoneError {
    static func unknownSerial(_ serial: String) -> PhoneError {
        PhoneError(.notFound, "UNKNOWN_SERIAL", "this phone has no privacyIDEA token \(serial)")
    }
    static let challengeExpired = PhoneError(
        .gone, "CHALLENGE_EXPIRED", "the challenge is older than \(PushChallenge.lifetime.components.seconds) seconds")
    static func privacyIDEARefused(_ detail: String) -> PhoneError { PhoneError(.badGateway, "PRIVACYIDEA_REFUSED", detail) }
    static let noPrivacyIDEARequest = PhoneError(.conflict, "NO_PRIVACYIDEA_REQUEST", "this phone has no privacyIDEA request waiting for an answer")
}

extension PushEnrolment {
    /// The privacyIDEA server the user accepts once, as the allow-list compares servers.
    var origin: String { Phone.origin(of: url) ?? url.absoluteString }
}
