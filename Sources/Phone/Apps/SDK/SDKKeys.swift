import AuthFlow
import BackendAPI
import Foundation
import OTP
import OutOfBand
import SodiumKit

/// The SDK app's keys: an account's, a new one, and the offline OTP key the backend's half
/// makes, with each failure as the phone's error. Pure functions, off the actor.
enum SDKKeys {
    static func accountKey(_ accounts: [AccountRecord], _ id: String) throws(PhoneError) -> Ed25519.KeyPair {
        guard let account = accounts.first(where: { $0.id == id }) else {
            throw PhoneError(.notFound, "ACCOUNT_NOT_FOUND", "this phone has no account \(id)")
        }
        return try keyPair(account.secretKey)
    }

    static func keyPair(_ secret: Data) throws(PhoneError) -> Ed25519.KeyPair {
        do { return try Ed25519.KeyPair(secretKey: Array(secret)) } catch { throw .crypto(error.description) }
    }

    static func newKeyPair() throws(PhoneError) -> Ed25519.KeyPair {
        do { return try .generate() } catch { throw .crypto(error.description) }
    }

    static func newOTPKeyPair() throws(PhoneError) -> KeyExchange.KeyPair {
        do { return try .generate() } catch { throw .crypto(error.description) }
    }

    /// The offline OTP key (docs/behaviour.md#offline-otp) from the backend's half, once the server key the phone
    /// pins vouches for that half and the account's reference.
    static func otpKey(
        _ answer: WireOTPEnrolment, keyPair: KeyExchange.KeyPair, phonePublicKey: String, sessionId: String,
        accountId: String, server: WireServer
    ) throws(PhoneError) -> (reference: UInt32, key: [UInt8]) {
        let message = SignedMessage.otpEnrolment(
            sessionId: sessionId, accountId: accountId, reference: answer.reference,
            serverPublicKey: answer.serverPublicKey, phonePublicKey: phonePublicKey)
        guard answer.reference < OfflineOTP.referenceCount, let serverKey = Base64URL.decode(server.publicKey),
            let signature = Base64URL.decode(answer.signature), let backendHalf = Base64URL.decode(answer.serverPublicKey),
            Ed25519.verify(signature: signature, message: message, publicKey: serverKey)
        else { throw .serverAuthentication("the offline OTP key is not signed by the server's key") }
        do { return (answer.reference, try keyPair.clientSharedKey(serverPublicKey: backendHalf)) } catch {
            throw .serverResponse("the server's offline OTP key cannot be used: \(error.description)")
        }
    }
}
