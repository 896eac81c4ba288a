import PrivacyIDEA

/// What the user's answer to a privacyIDEA challenge may carry (docs/privacyidea.md): a presence
/// option, a decline reason, and the phone's unlock where the challenge asks for one, all checked
/// on the phone before anything is sent.
extension PrivacyIDEAApp {
    /// The answer as the challenge allows it: a presence option only with an accept of a
    /// challenge that has them, a decline reason only where privacyIDEA takes one (a tiqr login
    /// takes neither).
    static func answer(
        accept: Bool, presence: String?, declineReason: DeclineReason?, to challenge: PrivacyIDEAMachine.Challenge
    ) throws(PhoneError) -> PushAnswer {
        let push: PushChallenge? = if case .push(let push) = challenge { push } else { nil }
        guard accept else {
            guard presence == nil else { throw .invalid("presence", "goes only with an accept") }
            guard declineReason == nil || push?.takesDeclineReason == true else {
                throw .invalid("declineReason", "privacyIDEA takes no reason for this challenge")
            }
            return .decline(declineReason)
        }
        guard declineReason == nil else { throw .invalid("declineReason", "goes only with a decline") }
        guard let options = push?.presenceOptions else {
            guard presence == nil else { throw .invalid("presence", "goes only with a challenge that asks for it") }
            return .accept(presence: nil)
        }
        guard let presence, options.contains(presence) else {
            throw .invalid("presence", "must be one of the options privacyIDEA sent: \(options.joined(separator: ", "))")
        }
        return .accept(presence: presence)
    }

    /// The unlock an accept must carry where the challenge asks for one, checked on the phone
    /// before anything is sent: a wrong PIN or an unrecognised finger leaves the request waiting.
    /// Where none is asked (`offered` nil: an enrolment, or a challenge without it), an unlock is refused.
    func checkUnlock(_ unlock: Unlock?, accept: Bool, offered: [UnlockFactor]?, phone: PhoneRecord) async throws(PhoneError) {
        guard let offered, accept else {
            if let unlock { throw .invalid(unlock.field, "goes only with the accept of a challenge that asks to unlock") }
            return
        }
        guard let unlock else {
            throw PhoneError(.badRequest, "UNLOCK_REQUIRED", "accepting this login takes the phone's PIN ('pin') or a biometric ('biometrics')")
        }
        guard offered.contains(unlock.factor) else {
            let factors = offered.isEmpty ? "neither (no PIN, no biometric)" : offered.map(\.rawValue).joined(separator: ", ")
            throw PhoneError(.conflict, "UNLOCK_UNAVAILABLE", "this phone cannot unlock with \(unlock.factor.rawValue); it can with: \(factors)")
        }
        switch unlock {
        case .pin(let pin):
            guard try await device.pinPad.isThePhonesPin(pin, phone: phone) == true else {
                throw PhoneError(.badRequest, "UNLOCK_FAILED", "the PIN is not this phone's PIN")
            }
        case .biometric(let recognised):
            guard recognised else { throw PhoneError(.badRequest, "UNLOCK_FAILED", "the biometric sensor did not recognise the user") }
        }
    }
}

extension PhoneRecord {
    /// What the phone can unlock a privacyIDEA login with: its PIN where one is set, the
    /// simulated biometric where one can be.
    var unlockFactors: [UnlockFactor] { (pinPublicKey != nil ? [.pin] : []) + (biometricsCanBeSet ? [.biometric] : []) }
}

extension Unlock {
    /// The answer's field that carries it.
    var field: String {
        switch self {
        case .pin: "pin"
        case .biometric: "biometrics"
        }
    }
}
