import Backend
import BackendAPI
import Foundation
import OutOfBand
import SodiumKit
import TestDoubles
import Testing

/// SIGN_TRANSACTION at the backend: the phone's signature covers the exact text, and nothing
/// else passes (security figure 18).
@Suite struct TransactionTests {
    let clock = TestClock()
    static let text = "Pay 120.00 EUR to ACME Ltd, IBAN CH93 0076 2011 6238 5295 7"

    func makeBackend() throws -> DemoBackend {
        let clock = clock
        return try DemoBackend(database: .inMemory(), baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
    }

    func sign(_ device: ScriptedDevice, _ session: String, _ challenge: String, _ account: String, _ text: String) -> String {
        Base64URL.encode(device.accountKey.sign(SignedMessage.transaction(sessionId: session, challenge: challenge,
                                                                          accountId: account, text: text)))
    }

    @Test func onlyTheSignedTextOfTheSessionIsAccepted() async throws {
        let backend = try makeBackend()
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let (session, challenge) = try await device.confirmedSession(backend, user: "alice", account: account, type: .transaction,
                                                                    transaction: Self.text)
        let altered = Self.text.replacingOccurrences(of: "120.00", with: "920.00")

        // Another text, even signed properly, is refused; so is the right text with a signature over another.
        let refusals = [
            (altered, sign(device, session, challenge, account, altered), "TRANSACTION_ALTERED"),
            (Self.text, sign(device, session, challenge, account, altered), "INVALID_SIGNATURE"),
        ]
        for (text, signature, code) in refusals {
            do {
                _ = try await backend.confirmTransaction(sessionId: session, TransactionConfirmRequest(
                    deviceId: device.id, accountId: account, transaction: text, signature: signature))
                Issue.record("an altered transaction was accepted")
            } catch {
                #expect(error.code == code)
            }
        }
        // The second factor cannot come first.
        await #expect(throws: BackendError.self) {
            try await device.provePin(backend, session: session, challenge: challenge, account: account, pin: "260418")
        }
        var state = try await backend.session(id: session)
        #expect(state.status == .confirmed)
        #expect(!state.transactionSigned)

        let confirmed = try await backend.confirmTransaction(sessionId: session, TransactionConfirmRequest(
            deviceId: device.id, accountId: account, transaction: Self.text, signature: sign(device, session, challenge, account, Self.text)))
        #expect(confirmed.challenge != challenge)
        // Signing twice is refused.
        await #expect(throws: BackendError.self) {
            try await backend.confirmTransaction(sessionId: session, TransactionConfirmRequest(
                deviceId: device.id, accountId: account, transaction: Self.text,
                signature: sign(device, session, confirmed.challenge, account, Self.text)))
        }
        let answer = try await device.provePin(backend, session: session, challenge: confirmed.challenge, account: account, pin: "260418")
        #expect(answer.result == .accepted)
        state = try await backend.session(id: session)
        #expect(state.status == .signed)
        #expect(state.transactionSigned)
        #expect(state.transaction == Self.text)
        #expect(!state.loggedin)
    }

    @Test func aTransactionNeedsItsTextAndAnEnrolledUser() async throws {
        let backend = try makeBackend()
        await #expect(throws: BackendError.self) { try await backend.createSession(type: .transaction, userId: "alice", displayName: nil) }
        await #expect(throws: BackendError.self) {
            try await backend.createSession(type: .login, userId: "alice", displayName: nil, transaction: Self.text)
        }
        for bad in ["", "   ", String(repeating: "x", count: 1001), "hidden\u{202E}text", "nul\u{0}"] {
            await #expect(throws: BackendError.self) {
                try await backend.createSession(type: .transaction, userId: "alice", displayName: nil, transaction: bad)
            }
        }
        do {
            _ = try await backend.createSession(type: .transaction, userId: "nobody", displayName: nil, transaction: Self.text)
            Issue.record("a transaction for a user without accounts was started")
        } catch {
            #expect(error.code == "USER_NOT_ENROLLED")
        }
        #expect(try await backend.recentSessions().isEmpty)
    }

    @Test func aPreselectedAccountMustBeTheUsersAndIsTheOnlyOneThatConfirms() async throws {
        let backend = try makeBackend()
        let device = ScriptedDevice()
        let alice = try await device.enrol(backend, user: "alice", pin: "260418")
        let bob = try await device.enrol(backend, user: "bob", pin: "260418")
        await #expect(throws: BackendError.self) {
            try await backend.createSession(type: .login, userId: "alice", displayName: nil, accountId: bob)
        }
        await #expect(throws: BackendError.self) {
            try await backend.createSession(type: .enrol, userId: "alice", displayName: nil, accountId: alice)
        }
        let session = try await backend.createSession(type: .login, userId: "alice", displayName: nil, accountId: alice)
        let redeemed = try await device.redeem(backend, session)
        #expect(redeemed.accountId == alice)
        let confirm = SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: alice)
        let answer = try await backend.confirm(sessionId: redeemed.sessionId, ConfirmRequest(
            deviceId: device.id, accountId: alice, signature: Base64URL.encode(device.accountKey.sign(confirm)), userInput: "desk 4",
            deviceSignature: device.deviceSignature(confirm)))
        #expect(!answer.challenge.isEmpty)
        #expect(try await backend.session(id: session.id).userInput == "desk 4")
    }
}
