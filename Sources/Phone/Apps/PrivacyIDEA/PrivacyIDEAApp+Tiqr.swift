import AuthFlow
import Foundation
import OTP
import PrivacyIDEA

/// privacyIDEA's tiqr tokens, as the tiqr app plays them (docs/privacyidea.md#tiqr): an enrolment
/// code's metadata read and the phone's secret sent, a login code answered with the OCRA
/// response to its question, or declined by sending nothing; when the server cannot be reached,
/// the response is shown for the user to type in.
extension PrivacyIDEAApp {
    /// A scanned `tiqrenroll://` code: the screen asks to trust its server, or it registers at
    /// once with one trusted before.
    public func startTiqrEnrolment(phoneId: String, text: String) async throws(PhoneError) -> PrivacyIDEARequest {
        let enrolment: TiqrEnrolment
        do { enrolment = try TiqrEnrolment(text: text) } catch { throw PhoneError(.badRequest, error.code, error.message) }
        return try await scanned(.tiqr(enrolment), phoneId: phoneId)
    }

    /// A scanned `tiqrauth://` code: on screen for the identity it names.
    public func startTiqrLogin(phoneId: String, text: String) async throws(PhoneError) -> PrivacyIDEARequest {
        let challenge: TiqrChallenge
        do { challenge = try TiqrChallenge(text: text) } catch { throw PhoneError(.badRequest, error.code, error.message) }
        let phone = try await device.phone(phoneId)
        // as the app does: a login for an identity it does not hold stops here, and no server hears of it
        guard let identity = try await device.store.tiqrIdentity(phoneId: phoneId, service: challenge.serviceIdentifier, identity: challenge.userId)
        else { throw .unknownTiqrIdentity(challenge) }
        guard try await !device.store.wasAnswered(phoneId: phoneId, serial: identity.listedSerial, nonce: challenge.sessionKey) else {
            throw PhoneError(.conflict, "CHALLENGE_REPLAYED", "the tiqr login \(challenge.sessionKey) was answered before")
        }
        let asked = PrivacyIDEARequest(
            kind: .challenge, state: .waitForInput, serial: identity.listedSerial,
            label: identity.shownName,
            issuer: identity.serviceName, origin: identity.origin, server: "tiqr", title: challenge.serviceName,
            question: "Log in to \(challenge.serviceName) as \(identity.shownName)?", unlockWith: phone.unlockPushTokens ? phone.unlockFactors : nil,
            nonce: challenge.sessionKey)
        change(phoneId) { machine in machine.arrived(.tiqr(challenge, serial: identity.listedSerial), shown: asked, at: device.now()) }
        guard let shown = request(phoneId: phoneId) else { throw .noPrivacyIDEARequest }
        return shown
    }

    /// The enrolment the user accepted: the metadata read, a new secret sent to the service's
    /// enrolment URL (under the retry policy), and the identity kept. `settled` hears when it ended.
    func register(_ enrolment: TiqrEnrolment, phoneId: String, settled: AsyncStream<Void>.Continuation) async {
        defer { settled.finish() }
        do throws(PhoneError) {
            let origin = Enrolment.tiqr(enrolment).origin
            let answer = try await exchanges.send("GET", enrolment.metadataURL.absoluteString, form: nil, sslVerify: true, phoneId: phoneId)
            let metadata: TiqrMetadata
            do { metadata = try TiqrMetadata(answer) { Phone.origin(of: $0) == origin } } catch {
                throw PhoneError(.badGateway, error.code, error.message)
            }
            let secret = try Device.random(32)
            let reply = try await registration(
                metadata.enrollmentURL.absoluteString, form: TiqrRequests.enrolment(secret: secret), sslVerify: true, phoneId: phoneId,
                settled: settled)
            try Self.requireOK(reply, refusal: "the tiqr server did not take the enrolment")
            try await device.store.keep(
                TiqrIdentityRecord(
                    phoneId: phoneId, serviceIdentifier: metadata.serviceIdentifier, identity: metadata.identity,
                    identityName: metadata.identityName, serviceName: metadata.serviceName, serial: enrolment.serial,
                    authenticationURL: metadata.authenticationURL.absoluteString, origin: origin, ocraSuite: metadata.ocra.suite,
                    secret: Data(secret), enrolledAt: device.now()))
            await announceTokens(phoneId)
            change(phoneId) { $0.registered() }
        } catch {
            change(phoneId) { $0.registered(failing: error.flowError) }
        }
    }

    /// The user's answer to a tiqr login: an accept sends the OCRA response; a decline sends
    /// nothing (tiqr has no decline), so the login waits out its time. A server out of reach
    /// leaves the response on screen, to type in where the login takes one.
    func send(_ answer: PushAnswer, to challenge: TiqrChallenge, serial: String, phoneId: String) async {
        var failure: FlowError?
        var shown: PrivacyIDEAAnswers.DisplayCode?
        do throws(PhoneError) {
            guard
                let identity = try await device.store.tiqrIdentity(phoneId: phoneId, service: challenge.serviceIdentifier, identity: challenge.userId)
            else { throw PhoneError.unknownTiqrIdentity(challenge) }
            guard try await device.store.noteAnswered(phoneId: phoneId, serial: serial, nonce: challenge.sessionKey, at: device.now()) else {
                throw PhoneError(.conflict, "CHALLENGE_REPLAYED", "the tiqr login \(challenge.sessionKey) was answered before")
            }
            if case .accept = answer {
                let response: String
                do { response = try OCRA(suite: identity.ocraSuite).response(key: [UInt8](identity.secret), question: challenge.question) } catch {
                    throw PhoneError(.badRequest, "INVALID_TIQR_CODE", "the login's question does not fit the suite: \(error.message)")
                }
                do {
                    let reply = try await exchanges.send(
                        "POST", identity.authenticationURL, form: TiqrRequests.authentication(challenge, response: response), sslVerify: true,
                        phoneId: phoneId)
                    try Self.requireOK(reply, refusal: "the tiqr server did not take the response")
                } catch  where error.isRetryable {
                    shown = .init(code: response, message: "The server could not be reached: type this response where the login asks for one.")
                    throw error
                }
            }
        } catch {
            failure = error.flowError
        }
        change(phoneId) { [failure, shown] machine in machine.answered(challenge.sessionKey, failing: failure, showing: shown) }
    }

    /// A tiqr server's plain `OK`; its refusals (a wrong response, no such login) in words.
    private static func requireOK(_ reply: Data, refusal: String) throws(PhoneError) {
        switch TiqrRequests.Reply(reply) {
        case .ok:
            return
        case .invalidResponse(let left):
            throw .privacyIDEARefused("\(refusal): the response was wrong" + (left.map { " (\($0) tries left)" } ?? ""))
        case .invalidChallenge:
            throw .privacyIDEARefused("\(refusal): no open login has this session (unknown, expired or answered)")
        case .refused(let text):
            do { try PrivacyIDEAAnswers.checkStatus(reply) } catch { throw .privacyIDEARefused(error.message) }
            throw .privacyIDEARefused("\(refusal): it answered '\(text.prefix(120))'")
        }
    }
}

extension PhoneError {
    static func unknownTiqrIdentity(_ challenge: TiqrChallenge) -> PhoneError {
        PhoneError(
            .notFound, "TIQR_IDENTITY_UNKNOWN",
            "this phone has no tiqr identity \(challenge.userId) at \(challenge.serviceIdentifier): enrol it first")
    }
}
