import AuthFlow
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Phone
import SodiumKit
import Testing
import WebApp

/// A PIN of the wrong shape is not a wrong PIN: it is refused on the screen, counts no attempt,
/// sends nothing and leaves the flow where it was (security reference: bad inputs per parser).
struct PinInputTests {
    static let malformed = ["", "12345", "1234567", "١٢٣٤٥٦", "１２３４５６", "12 456", "+12345", "-12345", "12345a", "1234\u{0}6"]

    @Test func aMalformedPinDuringVerificationCountsNothingAndTheFlowGoesOn() async throws {
        try await withEnrolledPhone { client, screen, phoneId in
            let login = try await client.startSession("login", user: "alice")
            _ = try await client.send(.post, "/api/phones/\(phoneId)/oob", json: ["qr": login.qrText])
            _ = try await screen.settledFlow()
            try await screen.send(["action": "confirmSession"])
            #expect(try await screen.settledFlow().currentInteraction?.type == .verifySecondFactor)
            for pin in Self.malformed {
                try await screen.send(["action": "inputSecondFactor", "pin": pin])
                let refusal = try await screen.next()
                #expect(refusal.error?.code == "INVALID_PIN_FORMAT", "\(pin.debugDescription)")
                #expect(refusal.error.map { !$0.message.contains(pin) || pin.isEmpty } == true)
            }
            let flow = try await client.phoneDetail(phoneId).flow
            #expect(flow?.state == .waitForInput)
            #expect(flow?.currentInteraction?.type == .verifySecondFactor)
            #expect(try await client.backendSession(login.id).status == .confirmed)
            // the next wrong PIN is the first one counted
            try await screen.send(["action": "inputSecondFactor", "pin": "918273"])
            #expect(try await screen.settledFlow().secondFactorAccount?.failedAttempts == 1)
        }
    }

    /// The policy takes the guarded buffer's bytes as they are (the PIN goes in straight from the
    /// message's UTF-8): a good PIN passes, a common one is refused, and a reset wipes it.
    @Test func thePolicyChecksThePinInsideItsGuardedBuffer() throws {
        let policy = try PinPolicy(length: 6)
        let pin = try GuardedBytes(copying: "739184".utf8)
        try pin.withBytes { bytes throws(PinPolicyError) in try policy.validate(bytes) }
        let common = try GuardedBytes(copying: "112233".utf8)
        #expect(throws: PinPolicyError.self) { try common.withBytes { bytes throws(PinPolicyError) in try policy.validate(bytes) } }
        #expect(pin.withBytes { Array($0) } == Array("739184".utf8))
        pin.reset()
        #expect(pin.isZeroed)
    }
}
