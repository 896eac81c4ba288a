import AuthFlow
import Foundation
import Hummingbird
import Phone
import Scenarios
import SodiumKit

/// The user's input to a phone's flow (confirm, PIN, biometric, cancel), read and carried out
/// the same way whichever door it came through: a message on the screen's WebSocket, or
/// `POST /api/phones/{id}/actions` from a script with no WebSocket client.
struct PhoneActions {
    let phones: PhoneService
    let recordings: Recordings

    /// One action, as the page sends it.
    struct Input: Decodable {
        enum Action: String, Codable {
            case confirmSession, confirmTransaction, inputSecondFactor, cancel
        }
        let action: Action
        let account: String?
        let userInput: String?
        let pin: String?
        /// The Nevis PIN change: the old PIN with the new `pin`.
        let oldPin: String?
        /// The simulated biometric prompt's outcome.
        let biometrics: BiometricPrompt?

        enum BiometricPrompt: String, Codable {
            case match, noMatch
        }
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("{id}/actions", use: take)
        return routes
    }

    /// The phone's flow once the action has been taken (`{"flow": …}`), `null` when there is none
    /// (a cancelled session that had not started its flow). The phone is looked up first, so
    /// that an unknown phone is that, whatever the body says.
    func take(_ request: Request, context: AppRequestContext) async throws -> NullableAnswer<Flow> {
        let phoneId = try context.parameters.require("id")
        _ = try await phones.phone(id: phoneId)
        try await carryOut(try Self.decode(try await request.collectJSONBody(context: context)), phoneId: phoneId)
        return NullableAnswer(field: "flow", value: await phones.sdk.currentFlow(phoneId: phoneId))
    }

    /// Strictly, as every body: an unknown field or action is refused before anything happens.
    static func decode(_ body: Data, what: String = "the request body") throws(APIError) -> Input {
        try StrictBody.decode(Input.self, from: body, what: what)
    }

    /// Carries out one action; anything wrong with it is an APIError or a PhoneError. A walk
    /// being recorded keeps it with what its PINs were to the flow, never their digits.
    func carryOut(_ input: Input, phoneId: String) async throws {
        guard recordings.isOn else { return try await act(input, phoneId: phoneId) }
        let before = await phones.sdk.currentFlow(phoneId: phoneId)
        let seenBefore = Recordings.seen(before)
        let account = input.account.map { id in before?.currentInteraction?.confirmSessionInfo?.accounts.first { $0.id == id }?.displayName ?? id }
        let recorded = ActInput(
            action: input.action.rawValue, account: account, biometrics: input.biometrics?.rawValue, userInput: input.userInput,
            typedPin: input.pin != nil, typedOldPin: input.oldPin != nil)
        try await recordings.noting({ try await act(input, phoneId: phoneId) }) { _, refusal in
            .acted(phone: phoneId, input: recorded, before: seenBefore, flow: await recordings.flowSeen(phoneId: phoneId), refusal: refusal)
        }
    }

    private func act(_ input: Input, phoneId: String) async throws {
        switch input.action {
        case .confirmSession:
            try await phones.sdk.confirmSession(phoneId: phoneId, accountID: input.account, userInput: input.userInput)
        case .confirmTransaction:
            try await phones.sdk.confirmTransaction(phoneId: phoneId)
        case .cancel:
            try await phones.sdk.cancel(phoneId: phoneId)
        case .inputSecondFactor:
            switch (input.pin, input.biometrics) {
            case (let pin?, nil):
                try await phones.sdk.inputPin(
                    phoneId: phoneId, pin: try GuardedBytes.pin(pin), oldPin: try input.oldPin.map(GuardedBytes.pin), userInput: input.userInput)
            case (nil, let prompt?) where input.oldPin == nil:
                try await phones.sdk.inputBiometrics(phoneId: phoneId, recognised: prompt == .match, userInput: input.userInput)
            case (let pin?, .match) where input.oldPin == nil:
                // an enrolment sets both at once (seeds 000, 002); the set prompt always matches
                try await phones.sdk.inputPin(phoneId: phoneId, pin: try GuardedBytes.pin(pin), withBiometrics: true, userInput: input.userInput)
            default:
                throw APIError(
                    .badRequest, "MISSING_FIELD",
                    "inputSecondFactor needs 'pin' (with 'oldPin' for a PIN change), 'biometrics', or both ('match') to set them at enrolment")
            }
        }
    }
}
