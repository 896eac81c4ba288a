import Foundation
import Hummingbird
import Phone
import PushService
import StrictJSON

/// `/api/push`: what the console's push cards read and keep. `messages` is the push log, every
/// message the FCM endpoint received and what became of it, newest first; filtered by phone (its
/// current token), raw target and outcome; cleared by DELETE. `composer/{console}` keeps a
/// console's composer templates and last message, so they survive a reload.
struct PushConsoleController {
    let push: PushService
    let phones: PhoneService

    struct Messages: ResponseEncodable {
        let messages: [PushLogEntry]
        /// How many messages the log keeps (the oldest leave).
        let limit: Int
        /// Every outcome there is, for a filter; and the project senders name.
        let outcomes: [PushOutcome]
        let project: String
    }

    static let logParameters: Set<String> = ["phone", "target", "outcome", "limit"]
    /// What a console keeps: its templates by name and the last message it sent.
    static let composerFields: Set<String> = ["templates", "last"]

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("messages") { request, _ in try await messages(request) }
        routes.delete("messages") { _, _ -> Response in
            try await push.clearMessages()
            return Response(status: .noContent)
        }
        routes.get("composer/{console}") { _, context -> Response in
            let kept = try await push.composerState(console: try Self.console(context)) ?? #"{"templates": {}, "last": null}"#
            return Self.json(kept)
        }
        routes.put("composer/{console}") { request, context -> Response in
            let console = try Self.console(context)
            let body = try await request.collectJSONBody(context: context)
            try Self.checkComposerState(body)
            let json = String(decoding: body, as: UTF8.self)
            try await push.saveComposerState(console: console, json: json)
            return Self.json(json)
        }
        return routes
    }

    private func messages(_ request: Request) async throws -> Messages {
        let query = request.uri.queryParameters
        if let unknown = query.map({ String($0.key) }).first(where: { !Self.logParameters.contains($0) }) {
            throw APIError(
                .badRequest, "UNKNOWN_PARAMETER",
                "the push log takes no parameter '\(unknown)' (only \(Self.logParameters.sorted().joined(separator: ", ")))")
        }
        let outcome = try query.get("outcome").map { text in
            guard let outcome = PushOutcome(rawValue: text) else {
                throw APIError(
                    .badRequest, "UNKNOWN_OUTCOME", "no outcome '\(text)': one of \(PushOutcome.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return outcome
        }
        let bound = push.logLimit
        let limit = try query.get("limit").map { text in
            guard let limit = Int(text), (1...bound).contains(limit) else {
                throw APIError(.badRequest, "INVALID_LIMIT", "limit must be a whole number from 1 to \(bound)")
            }
            return limit
        }
        if query.get("phone") != nil, query.get("target") != nil {
            throw APIError(.badRequest, "INVALID_FILTER", "filter by phone or by target, not both")
        }
        var targets = query.get("target").map { [$0] }
        if let id = query.get("phone") {
            let phone = try await phones.phone(id: id)
            // the Admin SDKs name a phone by its fid now, older senders by its token
            targets = [phone.fcmToken] + (phone.fid.map { [$0] } ?? [])
        }
        return Messages(
            messages: try await push.messages(to: targets, outcome: outcome, limit: limit), limit: bound,
            outcomes: PushOutcome.allCases, project: push.project)
    }

    /// A console's name: what the page that mounts the composer calls itself.
    private static func console(_ context: AppRequestContext) throws -> String {
        let name = try context.parameters.require("console")
        guard (1...64).contains(name.count), name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw APIError(.badRequest, "INVALID_CONSOLE", "a console's name is 1 to 64 letters, digits, '-' or '_'")
        }
        return name
    }

    /// The composer's state is the page's own JSON, kept as sent: strict JSON, an object with
    /// `templates` (an object) and `last` (an object or null), nothing else.
    private static func checkComposerState(_ body: Data) throws(APIError) {
        let kinds: [String: StrictJSON.Kind]
        do { kinds = try StrictJSON.scan(body) } catch {
            throw APIError(.badRequest, "MALFORMED_JSON", "the composer's state is not strict JSON: \(error.message)")
        }
        guard kinds[""] == .object, kinds["templates"] == .object, [.object, .null].contains(kinds["last"]) else {
            throw APIError(.badRequest, "INVALID_FIELD", "the composer's state is {\"templates\": {…}, \"last\": {…} or null}")
        }
        if let unknown = kinds.keys.filter({ !$0.isEmpty && !$0.contains(".") && !composerFields.contains($0) }).sorted().first {
            throw APIError(.badRequest, "UNKNOWN_FIELD", "the composer's state has a field '\(unknown)' it does not take")
        }
    }

    private static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
