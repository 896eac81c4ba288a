import AuthFlow
import Foundation
import PrivacyIDEA

/// One phone's privacyIDEA app (docs/privacyidea.md) as events in and actions out, with no I/O:
/// the enrolment being asked or registered, the open challenges (oldest first, as privacyIDEA's
/// app lists its push requests) and what the screen shows. `PrivacyIDEAApp` carries out the
/// actions and feeds back what came of them.
///
/// The newest challenge goes on screen and the others are listed with it (`shown.waiting`);
/// an answer names its challenge, so answering one never answers another; a challenge older
/// than its lifetime goes. An enrolment holds the screen while it runs.
struct PrivacyIDEAMachine: Sendable, Equatable {
    /// What the phone does next.
    enum Action: Sendable, Equatable {
        case none
        /// Register the token or container with its privacyIDEA: the user accepted the server, or had before.
        case register(Enrolment)
        /// Send the answer to the challenge's server (a tiqr decline sends nothing, but is carried out too).
        case send(PushAnswer, to: Challenge)
    }

    /// A login the phone holds open: privacyIDEA's push challenge, or a tiqr login for the identity
    /// listed as `serial`.
    enum Challenge: Sendable, Equatable {
        case push(PushChallenge)
        case tiqr(TiqrChallenge, serial: String)

        /// What names it in answers: the push challenge's nonce, the tiqr login's session key.
        var nonce: String {
            switch self {
            case .push(let challenge): challenge.nonce
            case .tiqr(let challenge, _): challenge.sessionKey
            }
        }

        var serial: String {
            switch self {
            case .push(let challenge): challenge.serial
            case .tiqr(_, let serial): serial
            }
        }
    }

    /// A challenge the phone holds open: as its server sent it, as the screen shows it, and
    /// when it arrived.
    struct OpenChallenge: Sendable, Equatable {
        var challenge: Challenge
        var request: PrivacyIDEARequest
        var receivedAt: Date
        /// The answer on its way: it is no longer offered.
        var answer: PushAnswer?
        var answering: Bool { answer != nil }
    }

    private(set) var screen: PrivacyIDEARequest?
    private(set) var open: [OpenChallenge] = []
    private var enrolment: Enrolment?

    /// The screen with the other open challenges listed on it, newest first.
    var shown: PrivacyIDEARequest? {
        guard var shown = screen else { return nil }
        let others = open.filter { !$0.answering && $0.challenge.nonce != shown.nonce }.reversed().map(\.request)
        shown.waiting = others.isEmpty ? nil : Array(others)
        return shown
    }

    /// Whether something on screen waits for the user or is being sent: a new enrolment waits.
    private var isBusy: Bool {
        guard let screen else { return false }
        return screen.state == .processing || (screen.kind != .challenge && screen.state == .waitForInput)
    }

    // MARK: enrolment

    /// A scanned enrolment code: registered at once with a server the user trusts (`trusted`)
    /// when it asks for no passphrase, otherwise the screen first asks. Refused while another
    /// request is being sent or asked.
    mutating func scanned(_ scanned: Enrolment, trusted: Bool) throws(PhoneError) -> Action {
        guard !isBusy else { throw .privacyIDEARequestOpen }
        enrolment = scanned
        let atOnce = trusted && scanned.passphrasePrompt == nil
        screen = scanned.request(state: atOnce ? .processing : .waitForInput)
        return atOnce ? .register(scanned) : .none
    }

    /// Whether the screen asks the user to trust an enrolment's server (and for a passphrase).
    var asksForTrust: Bool { enrolment != nil && screen?.kind != .challenge && screen?.state == .waitForInput }

    /// The passphrase prompt of the enrolment on screen, where it asks for one.
    var passphrasePrompt: String? { asksForTrust ? enrolment?.passphrasePrompt : nil }

    /// The user's answer to the server question: the registration, or nothing with a cancel.
    mutating func trust(_ accept: Bool) throws(PhoneError) -> Action {
        guard asksForTrust, let enrolment else { throw .noPrivacyIDEARequest }
        guard accept else {
            self.enrolment = nil
            finish { $0.outcome = .cancelled }
            return .none
        }
        screen?.state = .processing
        return .register(enrolment)
    }

    /// The registration waits to try again: which attempt failed, of how many, why, and the wait.
    mutating func registrationRetrying(attempt: Int, of maxAttempts: Int, nextIn seconds: Double?, failure: String? = nil) {
        guard enrolment != nil, screen?.kind != .challenge else { return }
        screen?.attempt = attempt
        screen?.maxAttempts = maxAttempts
        screen?.nextAttemptIn = seconds
        screen?.attemptFailure = seconds == nil ? nil : failure
    }

    /// The registration ended: the token is kept (nil), or it failed with `error`.
    mutating func registered(failing error: FlowError? = nil) {
        guard enrolment != nil, screen?.kind != .challenge else { return }
        enrolment = nil
        finish { screen in
            if let error { screen.error = error } else { screen.outcome = .enrolled }
        }
    }

    // MARK: challenges

    /// A challenge privacyIDEA signed for a token of this phone (or a tiqr login for one of its
    /// identities), not answered before: it joins the open ones and goes on screen unless an
    /// enrolment or an answer holds it. One open already changes nothing.
    mutating func arrived(_ challenge: Challenge, shown request: PrivacyIDEARequest, at now: Date) {
        expire(at: now)
        guard !open.contains(where: { $0.challenge.nonce == challenge.nonce && $0.challenge.serial == challenge.serial }) else { return }
        open.append(OpenChallenge(challenge: challenge, request: request, receivedAt: now))
        if !isBusy { screen = request }
    }

    /// A challenge that did not verify: shown as refused, where nothing waits on screen.
    mutating func refused(_ request: PrivacyIDEARequest, at now: Date) {
        expire(at: now)
        guard screen?.state != .waitForInput, !isBusy else { return }
        screen = request
    }

    /// The open challenge an answer is for: the one named, or the one on screen. One past its
    /// lifetime goes, and is refused.
    mutating func challenge(_ nonce: String?, at now: Date) throws(PhoneError) -> OpenChallenge {
        guard let nonce = nonce ?? (screen?.kind == .challenge && screen?.state == .waitForInput ? screen?.nonce : nil),
            let found = open.first(where: { $0.challenge.nonce == nonce && !$0.answering })
        else { throw .noPrivacyIDEARequest }
        guard !Self.hasExpired(found, at: now) else {
            expire(at: now)
            throw .challengeExpired
        }
        return found
    }

    /// The user's checked answer to an open challenge: it goes on screen while it is sent.
    mutating func answer(_ answer: PushAnswer, nonce: String, at now: Date) throws(PhoneError) -> Action {
        let found = try challenge(nonce, at: now)
        guard let index = open.firstIndex(of: found) else { throw .noPrivacyIDEARequest }
        open[index].answer = answer
        screen = found.request
        screen?.state = .processing
        return .send(answer, to: found.challenge)
    }

    /// The answer's fate: privacyIDEA took it (`error` nil), with a code to show where its
    /// `push_code_to_phone` asks the user to type one, or it failed (a tiqr login's server out
    /// of reach shows the response to type in instead). Either way the challenge is closed: it
    /// counts as answered once sent.
    mutating func answered(_ nonce: String, failing error: FlowError? = nil, showing code: PrivacyIDEAAnswers.DisplayCode? = nil) {
        guard let index = open.firstIndex(where: { $0.challenge.nonce == nonce && $0.answering }), let answer = open[index].answer else { return }
        open.remove(at: index)
        guard screen?.kind == .challenge, screen?.nonce == nonce, screen?.state == .processing else { return }
        finish { screen in
            screen.displayCode = code?.code
            screen.displayMessage = code?.message
            if let error {
                screen.error = error
            } else if case .decline(let reason) = answer {
                screen.outcome = .declined
                screen.declineReason = reason
            } else {
                screen.outcome = .accepted
            }
        }
    }

    /// Open challenges past their lifetime go; one waiting on screen shows why it went.
    mutating func expire(at now: Date) {
        let expired = open.filter { !$0.answering && Self.hasExpired($0, at: now) }.map(\.challenge.nonce)
        guard !expired.isEmpty else { return }
        open.removeAll { expired.contains($0.challenge.nonce) && !$0.answering }
        if let nonce = screen?.nonce, expired.contains(nonce), screen?.state == .waitForInput {
            finish { $0.error = PhoneError.challengeExpired.flowError }
        }
    }

    private static func hasExpired(_ open: OpenChallenge, at now: Date) -> Bool {
        now.timeIntervalSince(open.receivedAt) > Double(PushChallenge.lifetime.components.seconds)
    }

    /// Ends what is on screen: DONE with its outcome, or ERROR when `change` set an error.
    private mutating func finish(_ change: (inout PrivacyIDEARequest) -> Void) {
        guard var ended = screen else { return }
        change(&ended)
        ended.state = ended.error == nil ? .done : .error
        ended.nextAttemptIn = nil
        screen = ended
    }
}

/// What a scanned privacyIDEA code enrols: a push token, a smartphone container, or a tiqr identity.
enum Enrolment: Sendable, Equatable {
    case pushToken(PushEnrolment)
    case container(ContainerRegistration)
    case tiqr(TiqrEnrolment)

    var passphrasePrompt: String? {
        guard case .container(let registration) = self else { return nil }
        return registration.passphrasePrompt
    }

    var origin: String {
        switch self {
        case .pushToken(let enrolment): enrolment.origin
        case .container(let registration): Phone.origin(of: registration.serverURL) ?? registration.serverURL.absoluteString
        case .tiqr(let enrolment): Phone.origin(of: enrolment.metadataURL) ?? enrolment.metadataURL.absoluteString
        }
    }

    /// The screen that asks for it or shows it registering.
    func request(state: FlowState) -> PrivacyIDEARequest {
        switch self {
        case .pushToken(let enrolment):
            PrivacyIDEARequest(
                kind: .enrolment, state: state, serial: enrolment.serial, label: enrolment.label, issuer: enrolment.issuer, origin: origin,
                server: enrolment.server.rawValue)
        case .container(let registration):
            PrivacyIDEARequest(
                kind: .container, state: state, serial: registration.serial, label: registration.serial, issuer: registration.issuer,
                origin: origin, server: PushEnrolment.Server.privacyIDEA.rawValue, passphrasePrompt: registration.passphrasePrompt)
        case .tiqr(let enrolment):
            PrivacyIDEARequest(
                kind: .tiqrEnrolment, state: state, serial: enrolment.serial ?? "", label: enrolment.serial ?? origin, issuer: "tiqr",
                origin: origin, server: "tiqr")
        }
    }
}
