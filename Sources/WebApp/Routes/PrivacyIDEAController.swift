import Hummingbird
import Phone
import PrivacyIDEA
import SodiumKit

/// `/api/phones/{id}/privacyidea`: a phone's privacyIDEA push tokens, its containers and the
/// request on its screen (docs/privacyidea.md). Enrolment and container codes come in through
/// the phone's scanning doors.
struct PrivacyIDEAController {
    let phones: PhoneService

    struct Tokens: ResponseEncodable {
        let tokens: [PushTokenSummary]
    }

    struct Containers: ResponseEncodable {
        let containers: [ContainerSummary]
    }

    /// The request on screen after a call; `null` when there is none.
    typealias OnScreen = NullableAnswer<PrivacyIDEARequest>

    static func shown(_ request: PrivacyIDEARequest?) -> OnScreen { OnScreen(field: "privacyIDEA", value: request) }

    /// `{"accept": true|false, "nonce"?: an open challenge's (else the one on screen), "presence"?: option, "declineReason"?: "unknown_trigger"|"cancelled",
    /// "pin"?: the phone's PIN | "biometrics"?: "match"|"noMatch", "passphrase"?: what a container's registration asks for}`:
    /// the PIN and biometrics unlock an accept.
    struct Answer: Decodable {
        let accept: Bool
        let nonce: String?
        let presence: String?
        let declineReason: DeclineReason?
        let pin: String?
        let biometrics: PhoneActions.Input.BiometricPrompt?
        let passphrase: String?

        func unlock() throws -> Unlock? {
            switch (pin, biometrics) {
            case (nil, nil): nil
            case (let pin?, nil): .pin(try GuardedBytes.pin(pin))
            case (nil, let prompt?): .biometric(recognised: prompt == .match)
            case (.some, .some): throw APIError(.badRequest, "INVALID_FIELD", "give 'pin' or 'biometrics', not both")
            }
        }
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("{id}/privacyidea/tokens", use: tokens)
        routes.delete("{id}/privacyidea/tokens/{serial}", use: deleteToken)
        routes.post("{id}/privacyidea/tokens/{serial}/poll", use: poll)
        routes.get("{id}/privacyidea/request", use: onScreen)
        routes.post("{id}/privacyidea/answer", use: answer)
        routes.get("{id}/privacyidea/containers", use: containers)
        routes.post("{id}/privacyidea/containers/{serial}/sync", use: synchronize)
        routes.post("{id}/privacyidea/containers/{serial}/rollover", use: rollover)
        routes.delete("{id}/privacyidea/containers/{serial}", use: unregister)
        return routes
    }

    func tokens(_ request: Request, context: AppRequestContext) async throws -> Tokens {
        Tokens(tokens: try await phones.privacyIDEA.tokens(phoneId: context.parameters.require("id")))
    }

    func deleteToken(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await phones.privacyIDEA.deleteToken(phoneId: context.parameters.require("id"), serial: context.parameters.require("serial"))
        return Response(status: .noContent)
    }

    /// "Check now": asks the token's privacyIDEA for open challenges, as its app's poll does.
    func poll(_ request: Request, context: AppRequestContext) async throws -> OnScreen {
        try await request.expectNoBody(context: context)
        let id = try context.parameters.require("id")
        return Self.shown(try await phones.privacyIDEA.poll(phoneId: id, serial: context.parameters.require("serial")))
    }

    func onScreen(_ request: Request, context: AppRequestContext) async throws -> OnScreen {
        let id = try context.parameters.require("id")
        _ = try await phones.phone(id: id)
        return Self.shown(await phones.privacyIDEA.request(phoneId: id))
    }

    func answer(_ request: Request, context: AppRequestContext) async throws -> OnScreen {
        let input = try await request.decodeJSON(as: Answer.self, context: context)
        let id = try context.parameters.require("id")
        return Self.shown(
            try await phones.privacyIDEA.answer(
                phoneId: id, nonce: input.nonce, accept: input.accept, presence: input.presence, declineReason: input.declineReason,
                unlock: input.unlock(), passphrase: input.passphrase))
    }

    func containers(_ request: Request, context: AppRequestContext) async throws -> Containers {
        Containers(containers: try await phones.privacyIDEA.containers(phoneId: context.parameters.require("id")))
    }

    /// "Sync now": the container's tokens as its privacyIDEA has them, and what changed.
    func synchronize(_ request: Request, context: AppRequestContext) async throws -> ContainerSynchronized {
        try await request.expectNoBody(context: context)
        let id = try context.parameters.require("id")
        return try await phones.privacyIDEA.synchronize(phoneId: id, serial: context.parameters.require("serial"))
    }

    /// The container handed to another phone: privacyIDEA's new registration code for it.
    func rollover(_ request: Request, context: AppRequestContext) async throws -> ContainerRollover {
        try await request.expectNoBody(context: context)
        let id = try context.parameters.require("id")
        return try await phones.privacyIDEA.rollover(phoneId: id, serial: context.parameters.require("serial"))
    }

    /// Unregisters the container at privacyIDEA; it leaves the phone, its tokens stay.
    func unregister(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        try await phones.privacyIDEA.unregister(phoneId: id, serial: context.parameters.require("serial"))
        return Response(status: .noContent)
    }
}
extension ContainerSynchronized: ResponseEncodable {}
extension ContainerRollover: ResponseEncodable {}
