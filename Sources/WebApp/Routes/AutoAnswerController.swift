import Hummingbird
import Phone
import SodiumKit

/// `/api/phones/{id}/auto-answer`: the phone's auto-answer rules (docs/scripting.md#auto-answer-rules).
/// They live in memory; a rule's PIN is checked on the phone and never answered back.
struct AutoAnswerController {
    let phones: PhoneService

    /// `{"server"?, "user"?, "text"?, "answer", "pin"?, "biometric"?, "account"?, "count"?, "expiresIn"?}`.
    struct NewRule: Codable {
        let server: String?
        let user: String?
        let text: String?
        let answer: AutoAnswerRule.Answer
        let pin: String?
        let biometric: Bool?
        let account: String?
        let count: Int?
        let expiresIn: Int?
    }

    struct RuleList: ResponseEncodable {
        let rules: [AutoAnswerRule]
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("{id}/auto-answer") { request, context in
            let input = try await request.decodeJSON(as: NewRule.self, context: context)
            let rule = try await phones.addAutoAnswerRule(
                phoneId: context.parameters.require("id"),
                .init(
                    server: input.server, user: input.user, text: input.text, answer: input.answer,
                    pin: try input.pin.map(GuardedBytes.pin), biometric: input.biometric ?? false, account: input.account,
                    count: input.count, expiresIn: input.expiresIn))
            return EditedResponse(status: .created, response: rule)
        }
        routes.get("{id}/auto-answer") { _, context in
            RuleList(rules: try await phones.autoAnswerRules(phoneId: context.parameters.require("id")))
        }
        routes.delete("{id}/auto-answer") { _, context in
            try await phones.clearAutoAnswerRules(phoneId: context.parameters.require("id"))
            return Response(status: .noContent)
        }
        routes.delete("{id}/auto-answer/{rule}") { _, context in
            try await phones.deleteAutoAnswerRule(phoneId: context.parameters.require("id"), id: context.parameters.require("rule"))
            return Response(status: .noContent)
        }
        return routes
    }
}

extension AutoAnswerRule: ResponseEncodable {}
