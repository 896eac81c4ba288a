import Hummingbird
import Identifiers
import Phone
import SMSGateway

/// The texts for scripts and the page (docs/sms.md): a phone's Messages app
/// (`/api/phones/{id}/messages`), the gateway's credentials for senders (`/api/sms/account`)
/// and its log of every text it was handed (`/api/sms/log`).
struct MessagesController {
    let phones: PhoneService
    let gateway: SMSGateway
    /// This server's base URL as senders reach it.
    let baseURL: @Sendable () -> String

    struct TextList: ResponseEncodable {
        let messages: [TextMessage]
    }

    struct SMSLog: ResponseEncodable {
        let texts: [SMSLogEntry]
    }

    /// What a sender is set up with.
    struct Account: ResponseEncodable {
        let accountSid: String
        let authToken: String
        /// The generic gateway's URL (privacyIDEA's `URL`).
        let gatewayURL: String
        /// Where Twilio's libraries are pointed instead of `https://api.twilio.com`.
        let twilioBaseURL: String
    }

    var phoneRoutes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("{id}/messages") { _, context in
            TextList(messages: try await phones.messages.texts(phoneId: context.parameters.require("id")))
        }
        routes.delete("{id}/messages") { _, context in
            try await phones.messages.clear(phoneId: context.parameters.require("id"))
            return Response(status: .noContent)
        }
        return routes
    }

    var gatewayRoutes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("account") { _, _ -> Response in
            let account = try await gateway.account()
            var response = try WireResponseEncoder.response(
                Account(
                    accountSid: account.sid, authToken: account.authToken, gatewayURL: baseURL() + SMSDoorsController.gatewayRoute,
                    twilioBaseURL: baseURL()))
            response.headers[.cacheControl] = "no-store"
            return response
        }
        routes.get("log") { request, _ -> SMSLog in
            let query = request.uri.queryParameters
            if let unknown = query.map({ String($0.key) }).first(where: { !["to", "limit"].contains($0) }) {
                throw APIError(.badRequest, "UNKNOWN_PARAMETER", "the SMS log takes no parameter '\(unknown)' (only limit, to)")
            }
            var number: PhoneNumber?
            if let to = query["to"] {
                do { number = try PhoneNumber(reading: String(to)) } catch {
                    throw APIError(.badRequest, "INVALID_NUMBER", "the parameter 'to': \(error)")
                }
            }
            var limit: Int?
            if let text = query["limit"] {
                guard let value = Int(text), value > 0 else {
                    throw APIError(.badRequest, "INVALID_FIELD", "the parameter 'limit' must be a positive whole number")
                }
                limit = value
            }
            return SMSLog(texts: try await gateway.log(to: number, limit: limit))
        }
        routes.delete("log") { _, _ in
            try await gateway.clearLog()
            return Response(status: .noContent)
        }
        return routes
    }
}

extension TextMessage: ResponseEncodable {}
