import AuthFlow
import BlockingWork
import Foundation
import SodiumKit
import Synchronization

/// The phone's PIN pad, shared by its apps: the policy a new PIN meets; a PIN's key derived with
/// Argon2id, deliberately slow, so off the actors on the PIN lane's threads, in the place the
/// PIN's input took there (`takePlace`); and a PIN told to be the phone's without asking any server.
final class PinPad: Sendable {
    /// The policy of a phone whose PIN length it does not fit (the server's default length).
    let policy: PinPolicy
    let derivation: PinKeyDerivation
    /// Nil: derived on the caller's thread (a phone of its own, in tests).
    let lane: WorkLane?
    private let places = Mutex<[String: WorkLane.Reservation]>([:])

    init(policy: PinPolicy, derivation: PinKeyDerivation, lane: WorkLane?) {
        self.policy = policy
        self.derivation = derivation
        self.lane = lane
    }

    /// Takes a place in the lane for the PIN the phone was just given, or refuses it when the
    /// lane is full (the screen asks again): its derivation further on runs there.
    func takePlace(for phoneId: String) throws(PhoneError) {
        var place: WorkLane.Reservation?
        if let lane {
            do { place = try lane.reserve() } catch { throw .busy(retryAfter: error.retryAfter) }
        }
        places.withLock { $0[phoneId] = place }
    }

    /// The place the phone's input took, if its derivation did not use it.
    func leavePlace(of phoneId: String) {
        places.withLock { $0[phoneId] = nil }
    }

    /// The policy a PIN being set must meet (its shape, then not too easy to guess), for the
    /// phone's PIN length.
    func checkPolicy(_ pin: GuardedBytes, of phone: PhoneRecord) throws(PhoneError) {
        let policy = (try? PinPolicy(length: phone.pinLength)) ?? policy
        do { try pin.withBytes { bytes throws(PinPolicyError) in try policy.validate(bytes) } } catch {
            throw PhoneError(.badRequest, error.code, error.message)
        }
    }

    func deriveKey(_ pin: GuardedBytes, salt: [UInt8], phoneId: String) async throws(PhoneError) -> Ed25519.KeyPair {
        let derivation = derivation
        guard let lane else {
            do { return try derivation.keyPair(pin: pin, salt: salt) } catch { throw .crypto(error.description) }
        }
        let place = places.withLock { $0.removeValue(forKey: phoneId) }
        do {
            return try await lane.run(in: place ?? nil) { _ in try derivation.keyPair(pin: pin, salt: salt) }
        } catch let busy as WorkLane.Busy {
            throw .busy(retryAfter: busy.retryAfter)
        } catch {
            throw .crypto("\(error)")
        }
    }

    /// Whether `pin` is the phone's PIN, told on the phone alone (no try at the backend, so no
    /// counter moves): derived with its salt and compared with the PIN key it keeps. Nil when it
    /// has no PIN key to compare with.
    func isThePhonesPin(_ pin: GuardedBytes, phone: PhoneRecord) async throws(PhoneError) -> Bool? {
        guard let salt = phone.pinSalt, let known = phone.pinPublicKey else { return nil }
        return try await Data(deriveKey(pin, salt: Array(salt), phoneId: phone.id).publicKey) == known
    }
}
