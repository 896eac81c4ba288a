import BackendAPI
import Foundation
import OutOfBand
import SodiumKit
import Testing

/// The backend as a test plays it: where it is, its key, and the answers it signs with that key.
struct TestServer: Sendable {
    static let url = "https://backend.test"
    static let redeemURL = url + BackendRoutes.redeem

    let key: Ed25519.KeyPair

    init() throws { key = try .generate() }

    var wire: WireServer { WireServer(name: "Test backend", url: Self.url, publicKey: Base64URL.encode(key.publicKey)) }

    /// A payload that sends the phone to this server's redeem route.
    func payload(token: String = UUID().uuidString) -> OutOfBandPayload {
        OutOfBandPayload(redeemData: .init(token: token, redeemURL: URL(string: Self.redeemURL)!))
    }

    /// A redeemed session of `type` for alice, signed by this server's key unless `signedBy` forges it.
    func session(
        _ type: WireSessionType, transaction: String? = nil, signedBy: Ed25519.KeyPair? = nil
    ) -> RedeemResponse {
        let id = UUID().uuidString.lowercased()
        let challenge = UUID().uuidString
        return RedeemResponse(
            sessionId: id, type: type, expiresAt: Date(timeIntervalSince1970: 1_900_000_000), server: wire, announceInfo: [:],
            displayName: type == .enrol ? "Alice" : nil, existingAccounts: type == .enrol ? [] : nil, userId: "alice",
            transaction: transaction, challenge: challenge,
            serverSignature: Base64URL.encode((signedBy ?? key).sign(SignedMessage.server(sessionId: id, challenge: challenge))))
    }

    /// The backend's half of an offline OTP key for the enrolment, vouched for by this server's
    /// key, and the key both halves give.
    func otpEnrolment(
        sessionId: String, accountId: String, reference: UInt32, phonePublicKey: String
    ) throws -> (answer: WireOTPEnrolment, key: [UInt8]) {
        let pair = try KeyExchange.KeyPair.generate()
        let backendHalf = Base64URL.encode(pair.publicKey)
        let message = SignedMessage.otpEnrolment(
            sessionId: sessionId, accountId: accountId, reference: reference, serverPublicKey: backendHalf,
            phonePublicKey: phonePublicKey)
        let phoneHalf = try #require(Base64URL.decode(phonePublicKey))
        return (
            WireOTPEnrolment(reference: reference, serverPublicKey: backendHalf, signature: Base64URL.encode(key.sign(message))),
            try pair.serverSharedKey(clientPublicKey: phoneHalf)
        )
    }

    /// Whether `signature` (base64url) is `publicKey`'s over `message`.
    static func verifies(_ signature: String?, _ message: [UInt8], by publicKey: String?) -> Bool {
        guard let signature = signature.flatMap(Base64URL.decode), let key = publicKey.flatMap(Base64URL.decode) else { return false }
        return Ed25519.verify(signature: signature, message: message, publicKey: key)
    }
}

extension WireSecondFactorAccount {
    /// A PIN with no failures against it, three tries allowed.
    static let fresh = WireSecondFactorAccount(isBlocked: false, failedAttempts: 0, maxAttempts: 3, penalisedFor: 0, penalisedUntil: nil)

    static func failed(_ attempts: Int) -> WireSecondFactorAccount {
        WireSecondFactorAccount(isBlocked: attempts >= 3, failedAttempts: attempts, maxAttempts: 3, penalisedFor: 0, penalisedUntil: nil)
    }
}
