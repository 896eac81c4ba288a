import Foundation
import Hummingbird
import SMSGateway
import WireJSON

/// The SMS gateway's two doors for senders (docs/sms.md), both behind the credentials it issued
/// (HTTP basic auth: account SID and auth token):
/// - `GET|POST /sms/send`: a generic HTTP gateway, its parameters in the query, a form or a JSON
///   object, under the names senders are set to use (privacyIDEA's `HttpSMSProvider`);
/// - `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` and `GET …/Messages/{Sid}.json`:
///   Twilio's Messages API, answered with Twilio's resource and error bodies.
struct SMSDoorsController {
    let gateway: SMSGateway

    static let gatewayRoute = "/sms/send"
    static let twilioPrefix = "/2010-04-01/Accounts/"

    /// A refusal in the door's own dialect.
    struct Refusal: HTTPResponseError {
        let error: SMSError
        let twilio: Bool
        var status: HTTPResponse.Status { .init(code: error.status) }

        func response(from request: Request, context: some RequestContext) throws -> Response {
            var response =
                twilio
                ? try WireResponseEncoder.response(error.twilioBody, status: status)
                : try APIError(status, error.code, error.message).response(from: request, context: context)
            if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            if error.status == 401 { response.headers[.wwwAuthenticate] = #"Basic realm="AuthPhone SMS gateway""# }
            return response
        }
    }

    /// What the generic door answers for a text it took.
    struct Taken: ResponseEncodable {
        let id: String
        let status: String
        let to: String
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        for method in [HTTPRequest.Method.get, .post] {
            router.on(RouterPath(Self.gatewayRoute), method: method) { request, context -> Taken in
                do throws(SMSError) {
                    let handed: SMSGateway.Handed
                    do throws(SMSError) {
                        let parameters = try await Self.parameters(of: request, context: context)
                        handed = SMSGateway.Handed(
                            text: Result { () throws(SMSError) in try OutgoingText(gatewayParameters: parameters) },
                            to: Self.value(parameters, OutgoingText.recipientNames), from: Self.value(parameters, OutgoingText.senderNames),
                            body: Self.value(parameters, OutgoingText.textNames))
                    } catch {
                        handed = SMSGateway.Handed(text: .failure(error), to: nil, from: nil, body: nil)
                    }
                    let entry = try await gateway.send(
                        handed, credentials: .init(authorization: request.headers[.authorization]), door: .gateway,
                        sender: context.remoteAddress?.ipAddress ?? "unknown"
                    ).entry
                    return Taken(id: entry.id, status: entry.outcome.rawValue, to: entry.to ?? "")
                } catch {
                    throw Refusal(error: error, twilio: false)
                }
            }
        }
        router.post("/2010-04-01/Accounts/{account}/Messages.json") { request, context -> Response in
            do throws(SMSError) {
                let handed: SMSGateway.Handed
                do throws(SMSError) {
                    let fields = try await Self.twilioForm(of: request, context: context)
                    func field(_ name: String) -> String? { fields.last { $0.0 == name }?.1 }
                    let from = field("From") ?? field("MessagingServiceSid").map { _ in OutgoingText.unnamedSender }
                    handed = SMSGateway.Handed(
                        text: Result { () throws(SMSError) in try OutgoingText(to: field("To"), from: from, body: field("Body")) },
                        to: field("To"), from: from, body: field("Body"))
                } catch {
                    handed = SMSGateway.Handed(text: .failure(error), to: nil, from: nil, body: nil)
                }
                let (entry, account) = try await gateway.send(
                    handed, credentials: .init(authorization: request.headers[.authorization], account: context.parameters.get("account")),
                    door: .twilio, sender: context.remoteAddress?.ipAddress ?? "unknown")
                do { return try WireResponseEncoder.response(TwilioMessage(entry, account: account.sid, justCreated: true), status: .created) } catch
                {
                    throw .request("the answer could not be written")
                }
            } catch {
                throw Refusal(error: error, twilio: true)
            }
        }
        router.get("/2010-04-01/Accounts/{account}/Messages/{message}") { request, context -> Response in
            do throws(SMSError) {
                let name = context.parameters.get("message") ?? ""
                let (entry, account) = try await gateway.entry(
                    id: name.hasSuffix(".json") ? String(name.dropLast(5)) : name,
                    credentials: .init(authorization: request.headers[.authorization], account: context.parameters.get("account")),
                    path: request.uri.path)
                do { return try WireResponseEncoder.response(TwilioMessage(entry, account: account.sid, justCreated: false)) } catch {
                    throw .request("the answer could not be written")
                }
            } catch {
                throw Refusal(error: error, twilio: true)
            }
        }
    }

    /// Twilio's Messages API takes a form, as its libraries send it, and nothing else.
    static func twilioForm(of request: Request, context: AppRequestContext) async throws(SMSError) -> [(String, String)] {
        guard request.headers[.contentType]?.lowercased().hasPrefix(RequestGuardMiddleware.formType) == true else {
            throw .request("Twilio's Messages API takes a form (Content-Type: \(RequestGuardMiddleware.formType))")
        }
        let body: [UInt8]
        do { body = Array(buffer: try await request.body.collect(upTo: context.maxUploadSize)) } catch {
            throw .request("the body is larger than \(context.maxUploadSize) bytes")
        }
        guard let fields = OutgoingText.formFields(body) else { throw .request("the body is not a form (application/x-www-form-urlencoded)") }
        return fields
    }

    /// The query's parameters, and the body's: a JSON object's strings and numbers, or a form's fields.
    static func parameters(of request: Request, context: AppRequestContext) async throws(SMSError) -> [String: String] {
        var parameters: [String: String] = [:]
        if let query = request.uri.query {
            guard let fields = OutgoingText.formFields(Array(query.utf8)) else { throw .request("the query cannot be read") }
            for (name, value) in fields { parameters[name] = value }
        }
        let body: [UInt8]
        do { body = Array(buffer: try await request.body.collect(upTo: context.maxUploadSize)) } catch {
            throw .request("the body is larger than \(context.maxUploadSize) bytes")
        }
        guard !body.isEmpty else { return parameters }
        if body.first == UInt8(ascii: "{") || request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true {
            guard case .object(let members)? = try? WireJSON.decoder().decode(OpenJSON.self, from: Data(body)) else {
                throw .request("the body is not a JSON object")
            }
            for (name, value) in members {
                switch value {
                case .string(let text): parameters[name] = text
                case .number: parameters[name] = value.description
                case .null: continue
                default: throw .request("the parameter '\(name)' is not a string or a number")
                }
            }
        } else {
            guard let fields = OutgoingText.formFields(body) else { throw .request("the body is neither a form nor a JSON object") }
            for (name, value) in fields { parameters[name] = value }
        }
        return parameters
    }

    /// The value under any of the names, for the log.
    private static func value(_ parameters: [String: String], _ names: [String]) -> String? {
        parameters.first { names.contains($0.key.lowercased()) }?.value
    }
}
