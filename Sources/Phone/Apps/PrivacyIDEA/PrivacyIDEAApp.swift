import AuthFlow
import BackendAPI
import Foundation
import PrivacyIDEA

/// privacyIDEA's authenticator app on the phone (docs/privacyidea.md): it enrols push tokens from
/// privacyIDEA's QR code, takes their challenges by push or poll, checks privacyIDEA's signature
/// and answers with its own. Each phone's requests are one `PrivacyIDEAMachine`; this actor feeds
/// it events, carries out its actions, and shows its screen through `PhoneEvent.privacyIDEA`.
public actor PrivacyIDEAApp: PhoneApp {
    let device: Device
    let exchanges: PrivacyIDEAExchanges
    private var phones: [String: PrivacyIDEAMachine] = [:]
    /// The containers' synchronisations running, by phone and serial (`synchronize`).
    var syncsUnderWay: [String: Task<Result<ContainerSynchronized, PhoneError>, Never>] = [:]

    init(device: Device, exchanges: PrivacyIDEAExchanges) {
        self.device = device
        self.exchanges = exchanges
    }

    // MARK: tokens

    /// The push tokens, then the tiqr identities, each oldest first.
    public func tokens(phoneId: String) async throws(PhoneError) -> [PushTokenSummary] {
        _ = try await device.phone(phoneId)
        return try await device.store.pushTokens(phoneId: phoneId).map(PushTokenSummary.init)
            + device.store.tiqrIdentities(phoneId: phoneId).map(PushTokenSummary.init)
    }

    public func deleteToken(phoneId: String, serial: String) async throws(PhoneError) {
        _ = try await device.phone(phoneId)
        var deleted = try await device.store.deletePushToken(phoneId: phoneId, serial: serial)
        if !deleted { deleted = try await device.store.deleteTiqrIdentity(phoneId: phoneId, serial: serial) }
        guard deleted else { throw .unknownSerial(serial) }
        await announceTokens(phoneId)
    }

    /// Tells the phone's screens its token list after a change.
    func announceTokens(_ phoneId: String) async {
        if let tokens = try? await tokens(phoneId: phoneId) { device.screen.send(.pushTokens(tokens), to: phoneId) }
    }

    /// What the screen shows, with the other open challenges listed on it.
    public func request(phoneId: String) -> PrivacyIDEARequest? {
        change(phoneId) { $0.expire(at: device.now()) }
        return phones[phoneId]?.shown
    }

    func show(_ phoneId: String, on detail: PhoneDetail) -> PhoneDetail {
        var detail = detail
        detail.privacyIDEA = request(phoneId: phoneId)
        return detail
    }

    // MARK: enrolment

    /// A scanned privacyIDEA enrolment code: registered at once with a server a registration
    /// succeeded with before, otherwise the phone first asks (as the seeds' server confirmation does).
    public func startEnrolment(phoneId: String, text: String) async throws(PhoneError) -> PrivacyIDEARequest {
        let enrolment: PushEnrolment
        do { enrolment = try PushEnrolment(text: text) } catch { throw PhoneError(.badRequest, error.code, error.message) }
        return try await scanned(.pushToken(enrolment), phoneId: phoneId)
    }

    /// A scanned code of either kind: registered at once with a server a registration succeeded
    /// with before (unless it asks for a passphrase), otherwise the screen first asks.
    func scanned(_ enrolment: Enrolment, phoneId: String) async throws(PhoneError) -> PrivacyIDEARequest {
        _ = try await device.phone(phoneId)
        let trusted = try await device.store.isAccepted(origin: enrolment.origin, phoneId: phoneId)
        let action = try change(phoneId) { machine throws(PhoneError) in try machine.scanned(enrolment, trusted: trusted) }
        return try await carryOut(action, phoneId: phoneId)
    }

    /// The user's answer to what is on screen, or to the open challenge `nonce` names: for an
    /// enrolment, whether to trust the server (with the passphrase a container asks for); for a
    /// challenge, accept (with the presence option picked, and the phone unlocked where asked) or
    /// decline (saying why, where privacyIDEA takes a reason).
    public func answer(
        phoneId: String, nonce: String? = nil, accept: Bool, presence: String?, declineReason: DeclineReason? = nil, unlock: Unlock? = nil,
        passphrase: String? = nil
    ) async throws(PhoneError) -> PrivacyIDEARequest {
        let phone = try await device.phone(phoneId)
        if nonce == nil, let machine = phones[phoneId], machine.asksForTrust {
            guard presence == nil else { throw .invalid("presence", "goes only with a challenge that asks for it") }
            guard declineReason == nil else { throw .invalid("declineReason", "goes only with a declined challenge") }
            if accept, machine.passphrasePrompt != nil, passphrase?.isEmpty ?? true {
                throw PhoneError(.badRequest, "PASSPHRASE_REQUIRED", "the container asks for its passphrase: give 'passphrase'")
            }
            guard passphrase == nil || machine.passphrasePrompt != nil else {
                throw .invalid("passphrase", "goes only with a container registration that asks for one")
            }
            try await checkUnlock(unlock, accept: accept, offered: nil, phone: phone)
            // the server is trusted once the registration succeeds (`register`), not before
            let action = try change(phoneId) { machine throws(PhoneError) in try machine.trust(accept) }
            return try await carryOut(action, phoneId: phoneId, passphrase: passphrase)
        }
        guard passphrase == nil else { throw .invalid("passphrase", "goes only with a container registration that asks for one") }
        let open = try change(phoneId) { machine throws(PhoneError) in try machine.challenge(nonce, at: device.now()) }
        let answer = try Self.answer(accept: accept, presence: presence, declineReason: declineReason, to: open.challenge)
        try await checkUnlock(unlock, accept: accept, offered: open.request.unlockWith, phone: phone)
        // the PIN's check awaited: the challenge must still be open, and not answered meanwhile
        let action = try change(phoneId) { machine throws(PhoneError) in
            try machine.answer(answer, nonce: open.challenge.nonce, at: device.now())
        }
        return try await carryOut(action, phoneId: phoneId)
    }

    // MARK: challenges

    /// A challenge from privacyIDEA in an FCM message's data: shown only when the token is this
    /// phone's, privacyIDEA signed it as it stands, it names the token's own server and it was not
    /// answered before. A forged one is shown as refused.
    public func receiveChallenge(phoneId: String, data: [String: String]) async throws(PhoneError) -> PrivacyIDEARequest {
        let challenge: PushChallenge
        do { challenge = try PushChallenge(data: data) } catch { throw PhoneError(.badRequest, error.code, error.message) }
        // a pushed challenge is always shown or refused, never skipped
        guard let shown = try await receive(challenge, phoneId: phoneId, polled: false) else { throw .noPrivacyIDEARequest }
        return shown
    }

    /// Asks privacyIDEA for the token's open challenges, as the app's poll does: each joins the
    /// open ones and the newest is on screen. Nil when none of the token's is open. A challenge
    /// this phone answered meanwhile is skipped rather than refused.
    public func poll(phoneId: String, serial: String) async throws(PhoneError) -> PrivacyIDEARequest? {
        _ = try await device.phone(phoneId)
        guard let token = try await device.store.pushToken(phoneId: phoneId, serial: serial) else { throw .unknownSerial(serial) }
        for fields in try await exchanges.poll(token, at: device.now()) {
            let challenge: PushChallenge
            do { challenge = try PushChallenge(fields: fields) } catch { throw PhoneError(.badRequest, error.code, error.message) }
            _ = try await receive(challenge, phoneId: phoneId, polled: true)
        }
        guard phones[phoneId]?.open.contains(where: { $0.challenge.serial == serial && !$0.answering }) == true else { return nil }
        return phones[phoneId]?.shown
    }

    /// A challenge, not yet verified, for a token of this phone. Nil: a poll's challenge answered
    /// before, or open already.
    private func receive(_ unverified: PushChallenge, phoneId: String, polled: Bool) async throws(PhoneError) -> PrivacyIDEARequest? {
        guard let token = try await device.store.pushToken(phoneId: phoneId, serial: unverified.serial) else {
            throw .unknownSerial(unverified.serial)
        }
        if polled, phones[phoneId]?.open.contains(where: { $0.challenge.nonce == unverified.nonce }) == true { return nil }
        var request = PrivacyIDEARequest(
            kind: .challenge, state: .waitForInput, serial: token.serial, label: token.label, issuer: token.issuer, origin: token.origin,
            title: unverified.title, question: unverified.question, presenceOptions: unverified.presenceOptions, nonce: unverified.nonce)
        let challenge: PushChallenge
        do throws(PrivacyIDEAError) {
            challenge = try unverified.verified(by: try PrivacyIDEAServerKey(token.serverKey))
            guard let url = URL(string: challenge.url), origin(of: url) == token.origin else {
                throw PrivacyIDEAError(code: "PUSH_CHALLENGE_FORGED", message: "the challenge names another server than its token's")
            }
        } catch {
            request.state = .error
            request.error = FlowError(code: error.code, message: error.message)
            change(phoneId) { [request] machine in machine.refused(request, at: device.now()) }
            throw PhoneError(.badRequest, error.code, error.message)
        }
        guard try await !device.store.wasAnswered(phoneId: phoneId, serial: challenge.serial, nonce: challenge.nonce) else {
            if polled { return nil }
            throw PhoneError(.conflict, "CHALLENGE_REPLAYED", "the challenge \(challenge.nonce) was answered before")
        }
        request.declineReasons = challenge.takesDeclineReason ? DeclineReason.allCases : nil
        let phone = try await device.phone(phoneId)
        if token.requiresUnlock || phone.unlockPushTokens {
            // privacyIDEA's app_force_unlock may name the one factor the token unlocks with
            request.unlockWith = phone.unlockFactors.filter { factor in token.unlockFactor.map { $0 == factor.rawValue } ?? true }
        }
        change(phoneId) { [request] machine in machine.arrived(.push(challenge), shown: request, at: device.now()) }
        // one delivered again while open is offered to the rules again: they may have changed
        if let answered = await answerAutomatically(request, phoneId: phoneId) { return answered }
        return phones[phoneId]?.shown
    }

    /// A rule for the challenge's server (and text) accepts or declines it, unlocking the phone
    /// with its PIN or biometric where asked. One that asks for a presence option waits for a
    /// person. Nil: no rule answered.
    private func answerAutomatically(_ request: PrivacyIDEARequest, phoneId: String) async -> PrivacyIDEARequest? {
        let asked = AutoAnswerRequest(
            server: request.origin, texts: [request.title, request.question].compactMap { $0 },
            step: .privacyIDEA(asksPresence: request.presenceOptions?.isEmpty == false, unlockWith: request.unlockWith))
        guard let (decision, rule) = device.automation.answer(asked, phoneId: phoneId, at: device.now()) else { return nil }
        let unlock: Unlock?
        switch decision.action {
        case .inputPin: unlock = try? rule.pinCopy().map(Unlock.pin)
        case .inputBiometrics: unlock = .biometric(recognised: true)
        case .confirm, .decline: unlock = nil
        }
        return await WireExchange.$answeringRule.withValue(rule.id) {
            try? await answer(phoneId: phoneId, nonce: request.nonce, accept: decision.action != .decline, presence: nil, unlock: unlock)
        }
    }

    // MARK: carrying out the machine's actions

    /// Carries out an action and answers with the screen: an answer's or a reachable privacyIDEA's
    /// registration once it has ended; an unreachable one's once it waits to try again, its
    /// retries going on by themselves, each on the screen.
    private func carryOut(_ action: PrivacyIDEAMachine.Action, phoneId: String, passphrase: String? = nil) async throws(PhoneError)
        -> PrivacyIDEARequest
    {
        switch action {
        case .none:
            break
        case .register(let enrolment):
            let (settled, report) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            Task {
                switch enrolment {
                case .pushToken(let token): await self.register(token, phoneId: phoneId, settled: report)
                case .container(let container): await self.register(container, passphrase: passphrase, phoneId: phoneId, settled: report)
                case .tiqr(let enrolment): await self.register(enrolment, phoneId: phoneId, settled: report)
                }
            }
            for await _ in settled { break }
        case .send(let answer, .push(let challenge)):
            await send(answer, to: challenge, phoneId: phoneId)
        case .send(let answer, .tiqr(let challenge, let serial)):
            await send(answer, to: challenge, serial: serial, phoneId: phoneId)
        }
        // the phone was deleted or moved to another instance meanwhile
        guard let shown = phones[phoneId]?.shown else { throw .noPrivacyIDEARequest }
        return shown
    }

    /// `settled` hears when the registration has ended or waits to try again.
    private func register(_ enrolment: PushEnrolment, phoneId: String, settled: AsyncStream<Void>.Continuation) async {
        defer { settled.finish() }
        do throws(PhoneError) {
            _ = try await enrol(enrolment, phoneId: phoneId, settled: settled)
            change(phoneId) { $0.registered() }
        } catch {
            change(phoneId) { $0.registered(failing: error.flowError) }
        }
    }

    /// A push token registered with its privacyIDEA and kept, its server trusted from then on.
    /// With `settled`, under the retry policy, each wait on screen; without (a container's
    /// token), in one attempt.
    func enrol(_ enrolment: PushEnrolment, phoneId: String, settled: AsyncStream<Void>.Continuation?) async throws(PhoneError)
        -> PushTokenRecord
    {
        let phone = try await device.phone(phoneId)
        let key = try await exchanges.newTokenKey()
        let form = PushTokenRequests.registration(enrolment, fcmToken: phone.fcmToken, key: key)
        let answer = try await registration(
            enrolment.url.absoluteString, form: form, sslVerify: enrolment.sslVerify, phoneId: phoneId, settled: settled)
        let serverKey: PrivacyIDEAServerKey
        do { serverKey = try PrivacyIDEAAnswers.serverKey(answer) } catch { throw PhoneError.privacyIDEARefused(error.message) }
        let token = PushTokenRecord(
            phoneId: phoneId, serial: enrolment.serial, label: enrolment.label, issuer: enrolment.issuer, url: enrolment.url.absoluteString,
            origin: enrolment.origin, sslVerify: enrolment.sslVerify, pollOnly: enrolment.pollOnly, requiresUnlock: enrolment.requiresUnlock,
            unlockFactor: enrolment.forcedUnlock.flatMap(UnlockFactor.init(forced:))?.rawValue, tokenKey: key.pkcs8, serverKey: serverKey.text,
            fcmToken: phone.fcmToken, createdAt: device.now())
        try await device.store.keep(token, trusting: enrolment.origin)
        await announceTokens(phoneId)
        return token
    }

    /// A registration's exchange: with `settled`, under the retry policy (each wait on screen and
    /// told to `settled`); without, one attempt.
    func registration(_ url: String, form: PushTokenRequests.Fields, sslVerify: Bool, phoneId: String, settled: AsyncStream<Void>.Continuation?)
        async throws(PhoneError) -> Data
    {
        let exchanges = exchanges
        guard let settled else { return try await exchanges.send("POST", url, form: form, sslVerify: sslVerify, phoneId: phoneId) }
        return try await exchanges.retried { attempt async throws(PhoneError) -> Data in
            try await exchanges.send("POST", url, form: form, sslVerify: sslVerify, phoneId: phoneId, attempt: attempt)
        } waiting: { [weak self] attempt, attempts, nextIn, failure in
            await self?.registrationRetrying(phoneId: phoneId, attempt: attempt, of: attempts, nextIn: nextIn, failure: failure)
            if nextIn != nil { settled.yield() }
        }
    }

    private func registrationRetrying(phoneId: String, attempt: Int, of attempts: Int, nextIn: Double?, failure: String?) {
        change(phoneId) { $0.registrationRetrying(attempt: attempt, of: attempts, nextIn: nextIn, failure: failure) }
    }

    private func send(_ answer: PushAnswer, to challenge: PushChallenge, phoneId: String) async {
        var failure: FlowError?
        var shown: PrivacyIDEAAnswers.DisplayCode?
        do throws(PhoneError) {
            guard let token = try await device.store.pushToken(phoneId: phoneId, serial: challenge.serial) else {
                throw PhoneError.unknownSerial(challenge.serial)
            }
            guard try await device.store.noteAnswered(phoneId: phoneId, serial: challenge.serial, nonce: challenge.nonce, at: device.now())
            else { throw PhoneError(.conflict, "CHALLENGE_REPLAYED", "the challenge \(challenge.nonce) was answered before") }
            shown = try await exchanges.answer(answer, to: challenge, token: token)
        } catch {
            failure = error.flowError
        }
        change(phoneId) { [failure, shown] machine in machine.answered(challenge.nonce, failing: failure, showing: shown) }
    }

    // MARK: the phone's state

    /// Applies an event to the phone's machine and, when it changed, shows its screen. The
    /// machine's changes stand when the event is refused (a challenge found expired goes).
    @discardableResult
    func change<T, Refusal: Error>(
        _ phoneId: String, _ event: (inout PrivacyIDEAMachine) throws(Refusal) -> T
    ) throws(Refusal) -> T {
        let before = phones[phoneId] ?? PrivacyIDEAMachine()
        var machine = before
        defer {
            if machine != before {
                phones[phoneId] = machine
                if let shown = machine.shown { device.screen.send(.privacyIDEA(shown), to: phoneId) }
            }
        }
        return try event(&machine)
    }

    /// What this app remembers of the phone goes (it was deleted, reset or moved to another instance).
    func forget(_ phoneId: String) { phones[phoneId] = nil }

    func forgetAll() { phones.removeAll() }

    /// Tells the phone's privacyIDEA servers its new FCM token, token by token (a device
    /// information change, under its retry policy).
    nonisolated func updateFCMToken(_ token: PushTokenRecord, to fcmToken: String, at time: Date) async throws(PhoneError) {
        try await exchanges.updateFCMToken(token, to: fcmToken, at: time)
    }
}

extension PhoneError {
    static func unknownSerial(_ serial: String) -> PhoneError {
        PhoneError(.notFound, "UNKNOWN_SERIAL", "this phone has no privacyIDEA token \(serial)")
    }
    static let challengeExpired = PhoneError(
        .gone, "CHALLENGE_EXPIRED", "the challenge is older than \(PushChallenge.lifetime.components.seconds) seconds")
    static func privacyIDEARefused(_ detail: String) -> PhoneError { PhoneError(.badGateway, "PRIVACYIDEA_REFUSED", detail) }
    static let privacyIDEARequestOpen = PhoneError(
        .conflict, "PRIVACYIDEA_REQUEST_OPEN", "this phone is showing another privacyIDEA enrolment or answer; wait for it to end")
    static let noPrivacyIDEARequest = PhoneError(.conflict, "NO_PRIVACYIDEA_REQUEST", "this phone has no privacyIDEA request waiting for an answer")
}

extension PushEnrolment {
    /// The privacyIDEA server the user accepts once, as the allow-list compares servers.
    var origin: String { Phone.origin(of: url) ?? url.absoluteString }
}
