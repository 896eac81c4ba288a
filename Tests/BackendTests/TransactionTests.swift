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

    func makeBackend(on engine: TestEngine) async throws -> DemoBackend {
        let clock = clock
        return try await DemoBackend(store: try await engine.open(BackendStore.self), baseURL: { "http://127.0.0.1:8080" }, now: { clock.now() })
    }

    func sign(_ device: ScriptedDevice, _ session: String, _ challenge: String, _ account: String, _ text: String) -> String {
        Base64URL.encode(
            device.accountKey.sign(
                SignedMessage.transaction(
                    sessionId: session, challenge: challenge,
                    accountId: account, text: text)))
    }

    @Test(arguments: TestEngine.available) func onlyTheSignedTextOfTheSessionIsAccepted(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        let device = ScriptedDevice()
        let account = try await device.enrol(backend, user: "alice", pin: "260418")
        let (session, challenge) = try await device.confirmedSession(
            backend, user: "alice", account: account, type: .transaction,
            transaction: Self.text)
        let altered = Self.text.replacingOccurrences(of: "120.00", with: "920.00")

        // Another text, even signed properly, is refused; so is the right text with a signature over another.
        let refusals = [
            (altered, sign(device, session, challenge, account, altered), "TRANSACTION_ALTERED"),
            (Self.text, sign(device, session, challenge, account, altered), "INVALID_SIGNATURE"),
        ]
        for (text, signature, code) in refusals {
            do {
                _ = try await backend.confirmTransaction(
                    sessionId: session,
                    TransactionConfirmRequest(
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

        let confirmed = try await backend.confirmTransaction(
            sessionId: session,
            TransactionConfirmRequest(
                deviceId: device.id, accountId: account, transaction: Self.text, signature: sign(device, session, challenge, account, Self.text)))
        #expect(confirmed.challenge != challenge)
        // Signing twice is refused.
        await #expect(throws: BackendError.self) {
            try await backend.confirmTransaction(
                sessionId: session,
                TransactionConfirmRequest(
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

    /// The backend's own text check, for a user it would otherwise start the transaction for.
    @Test(arguments: [
        ("", "must be 1 to 1000 characters"), ("   ", "must be 1 to 1000 characters"),
        (String(repeating: "x", count: 1001), "must be 1 to 1000 characters"),
        ("hidden\u{202E}txet", "must not contain control or invisible formatting characters"),
        ("nul\u{0}", "must not contain control or invisible formatting characters"),
    ])
    func anUnreadableTextIsRefused(_ text: String, _ reason: String) async throws {
        let backend = try await makeBackend(on: .sqlite)
        _ = try await ScriptedDevice().enrol(backend, user: "alice", pin: "260418")
        let before = try await backend.recentSessions().map(\.id)
        let error = await #expect(throws: BackendError.self) {
            try await backend.createSession(type: .transaction, userId: "alice", displayName: nil, transaction: text)
        }
        #expect(error?.code == "INVALID_FIELD")
        #expect(error?.message.hasPrefix("the field 'transaction' \(reason)") == true)
        #expect(try await backend.recentSessions().map(\.id) == before)
    }

    @Test(arguments: TestEngine.available) func aTransactionNeedsItsTextAndALoginOrTransactionAnEnrolledUser(on engine: TestEngine) async throws {
        let backend = try await makeBackend(on: engine)
        _ = try await ScriptedDevice().enrol(backend, user: "alice", pin: "260418")
        let refusals: [(WireSessionType, String, String?, String)] = [
            (.transaction, "alice", nil, "INVALID_FIELD"),
            (.login, "alice", Self.text, "INVALID_FIELD"),
            (.transaction, "nobody", Self.text, "USER_NOT_ENROLLED"),
            (.login, "nobody", nil, "USER_NOT_ENROLLED"),
        ]
        for (type, user, text, code) in refusals {
            let error = await #expect(throws: BackendError.self) {
                try await backend.createSession(type: type, userId: user, displayName: nil, transaction: text)
            }
            #expect(error?.code == code)
        }
        #expect(try await backend.recentSessions().count == 1)  // the enrolment
    }

    /// A login or transaction may pre-select one of the user's accounts; another account of the
    /// same user on the same device cannot confirm it, and the refusal changes nothing.
    @Test(arguments: [WireSessionType.login, .transaction])
    func aPreselectedAccountMustBeTheUsersAndIsTheOnlyOneThatConfirms(_ type: WireSessionType) async throws {
        let backend = try await makeBackend(on: .sqlite)
        let device = ScriptedDevice()
        let alice = try await device.enrol(backend, user: "alice", pin: "260418")
        let aliceAgain = try await device.enrol(backend, user: "alice", pin: "260418")
        let bob = try await device.enrol(backend, user: "bob", pin: "260418")
        let text = type == .transaction ? Self.text : nil
        for (user, account) in [("alice", bob), ("nobody", alice)] {
            let error = await #expect(throws: BackendError.self) {
                try await backend.createSession(type: type, userId: user, displayName: nil, transaction: text, accountId: account)
            }
            #expect(error?.code == "ACCOUNT_NOT_FOUND")
        }
        await #expect(throws: BackendError.self) {
            try await backend.createSession(type: .enrol, userId: "alice", displayName: nil, accountId: alice)
        }
        let session = try await backend.createSession(type: type, userId: "alice", displayName: nil, transaction: text, accountId: alice)
        let redeemed = try await device.redeem(backend, session)
        #expect(redeemed.accountId == alice)

        func confirm(_ account: String) async throws(BackendError) -> ConfirmResponse {
            let message = SignedMessage.confirm(sessionId: redeemed.sessionId, challenge: redeemed.challenge, accountId: account)
            return try await backend.confirm(
                sessionId: redeemed.sessionId,
                ConfirmRequest(
                    deviceId: device.id, accountId: account, signature: Base64URL.encode(device.accountKey.sign(message)), userInput: "desk 4",
                    deviceSignature: device.deviceSignature(message)))
        }
        let refused = await #expect(throws: BackendError.self) { try await confirm(aliceAgain) }
        #expect(refused?.code == "ACCOUNT_NOT_FOUND")
        let unchanged = try await backend.session(id: session.id)
        #expect(unchanged.status == .redeemed)
        #expect(unchanged.accountId == alice)
        #expect(unchanged.userInput == nil)

        // the challenge was not used up: the pre-selected account confirms with it
        #expect(!(try await confirm(alice)).challenge.isEmpty)
        let confirmed = try await backend.session(id: session.id)
        #expect(confirmed.status == .confirmed)
        #expect(confirmed.accountId == alice)
        #expect(confirmed.userInput == "desk 4")
    }
}
