import Backend
import BackendAPI
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Phone
import Timeline
import WireJSON

/// The timeline of every exchange between the parts: a session's and a phone's, as JSON or as a
/// HAR file (`?format=har`), and each new exchange live on `/api/timeline/stream`.
struct TimelineController {
    let timeline: Timeline
    let backend: DemoBackend
    let phones: PhoneService

    struct Answer: ResponseEncodable {
        let hops: [Hop]
    }

    static let sessionPath = BackendRoutes.root + "/" + BackendRoutes.Template.session + "/timeline"
    static let phonePath = "/api/phones/{id}/timeline"

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(RouterPath(Self.sessionPath)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            _ = try await backend.session(id: id)  // a session that does not exist is a 404, not an empty timeline
            return try answer(request, try await timeline.hops(sessionId: id), name: "session-\(id)", title: "AuthPhone session \(id)")
        }
        router.get(RouterPath(Self.phonePath)) { request, context in
            let phone = try await phones.phone(id: context.parameters.require("id"))
            return try answer(
                request, try await timeline.hops(phoneId: phone.id, pushToken: phone.fcmToken), name: "phone-\(phone.id)",
                title: "AuthPhone phone \(phone.name)")
        }
    }

    /// JSON by default; `?format=har` downloads it as a HAR file.
    private func answer(_ request: Request, _ hops: [Hop], name: String, title: String) throws -> Response {
        let format = request.uri.queryParameters["format"].map(String.init) ?? "json"
        let data: Data
        var headers: HTTPFields = [.cacheControl: "no-store", .contentType: "application/json"]
        switch format {
        case "json":
            data = try WireJSON.data(Answer(hops: hops))
        case "har":
            data = try WireJSON.data(HAR(hops, title: title))
            // the name is made of ids the server issued, so it needs no quoting beyond this
            headers[.contentDisposition] = "attachment; filename=\"\(name.filter { $0.isLetter || $0.isNumber || $0 == "-" }).har\""
        default:
            throw APIError(.badRequest, "INVALID_FIELD", "the query parameter 'format' must be json or har")
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// Every exchange as it is stored: `{"type": "hop", "hop": {...}}`; the page picks its own.
    func addStream(to router: Router<AppRequestContext>) {
        router.ws("/api/timeline/stream") { _, _ in
            .upgrade()
        } onUpgrade: { inbound, outbound, _ in
            try await StreamController.send(timeline.hops.subscribe(), as: { HopMessage(hop: $0) }, inbound: inbound, outbound: outbound)
        }
    }

    struct HopMessage: Encodable {
        let type = "hop"
        let hop: Hop
    }
}
