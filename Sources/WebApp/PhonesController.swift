import AuthFlow
import BackendAPI
import Foundation
import Hummingbird
import OutOfBand
import Phone
import PushService

/// `/api/phones`: the simulated phones, their local data, out-of-band input, and the inbox of
/// pushes the push service holds for each.
struct PhonesController {
    let phones: PhoneService
    let push: PushService

    struct CreatePhone: Decodable {
        let name: String
    }

    struct PhoneList: ResponseEncodable {
        let phones: [PhoneSummary]
    }

    struct FlowStarted: ResponseEncodable {
        let flow: Flow
    }

    /// A flow the phone starts itself.
    struct StartFlow: Decodable {
        let type: FlowType
    }

    struct Inbox: ResponseEncodable {
        let messages: [PushService.InboxMessage]
    }

    struct Pending: ResponseEncodable {
        let operations: [PendingOperation]
    }

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post { request, context -> EditedResponse<PhoneSummary> in
            let input = try await request.decodeJSON(as: CreatePhone.self, context: context)
            let phone = try await phones.createPhone(name: input.name)
            // The platform hands the new phone its push registration.
            try await push.register(token: phone.fcmToken)
            return EditedResponse(status: .created, response: phone)
        }
        routes.get { _, _ in PhoneList(phones: try await phones.phones()) }
        routes.get("{id}") { _, context in try await phones.phone(id: context.parameters.require("id")) }
        routes.put("{id}/settings") { request, context in
            let settings = try await request.decodeJSON(as: PhoneSettingsChange.self, context: context)
            return try await phones.update(phoneId: context.parameters.require("id"), settings: settings)
        }
        routes.post("{id}/flows") { request, context -> EditedResponse<FlowStarted> in
            let id = try await phones.phone(id: context.parameters.require("id")).id
            let input = try await request.decodeJSON(as: StartFlow.self, context: context)
            return EditedResponse(status: .accepted, response: FlowStarted(flow: try await phones.startManagement(phoneId: id, type: input.type)))
        }
        // The simulated sensor: enrol one more fingerprint or face, or remove them all.
        routes.post("{id}/sensor/features") { _, context in
            try await phones.enrolBiometricFeature(phoneId: context.parameters.require("id"))
        }
        routes.delete("{id}/sensor/features") { _, context in
            try await phones.removeBiometricFeatures(phoneId: context.parameters.require("id"))
        }
        routes.delete("{id}/accounts") { _, context in
            try await phones.removeAllAccounts(phoneId: context.parameters.require("id"))
        }
        routes.post("{id}/oob") { request, context -> EditedResponse<FlowStarted> in
            let id = try await phones.phone(id: context.parameters.require("id")).id
            let payload = try await Self.payload(from: request, context: context)
            let flow = try await phones.startOutOfBand(phoneId: id, payload: payload)
            return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
        }
        // The pull fallback: the phone asks its backends what is waiting for it.
        routes.get("{id}/pending") { _, context in
            Pending(operations: try await phones.pendingOperations(phoneId: context.parameters.require("id")))
        }
        // A picture of a QR code (a screenshot, a photo), as the phone's camera would see it.
        routes.post("{id}/oob/image") { request, context -> EditedResponse<FlowStarted> in
            let id = try await phones.phone(id: context.parameters.require("id")).id
            let image: ByteBuffer
            do { image = try await request.body.collect(upTo: QRImageScanner.maximumImageSize) } catch {
                throw APIError(.contentTooLarge, "BODY_TOO_LARGE", "the image is larger than \(QRImageScanner.maximumImageSize) bytes")
            }
            let text = try await QRImageScanner().scan(Data(buffer: image))
            let flow = try await phones.startOutOfBand(phoneId: id, payload: OutOfBandDecoder.decode(qrText: text))
            return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
        }
        routes.get("{id}/inbox") { _, context in
            let phone = try await phones.phone(id: context.parameters.require("id"))
            return Inbox(messages: try await push.inbox(token: phone.fcmToken))
        }
        routes.delete("{id}/inbox") { _, context -> Response in
            let phone = try await phones.phone(id: context.parameters.require("id"))
            try await push.clearInbox(token: phone.fcmToken)
            return Response(status: .noContent)
        }
        // Opening a notification: the app decodes the push and starts the operation. The
        // message leaves the inbox only once the operation has started.
        routes.post("{id}/inbox/{message}/open") { _, context -> EditedResponse<FlowStarted> in
            let phone = try await phones.phone(id: context.parameters.require("id"))
            let messageId = try context.parameters.require("message")
            guard let message = try await push.inbox(token: phone.fcmToken).first(where: { $0.id == messageId }) else {
                throw APIError(.notFound, "MESSAGE_NOT_FOUND", "no message \(messageId) in this phone's inbox")
            }
            let flow = try await phones.startOutOfBand(phoneId: phone.id, payload: message.message.payload())
            _ = try await push.take(token: phone.fcmToken, id: messageId)
            return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
        }
        return routes
    }

    /// `{"qr": text}`, `{"link": url}` or `{"push": FCM JSON}`: exactly one of them.
    static func payload(from request: Request, context: AppRequestContext) async throws -> OutOfBandPayload {
        let body = try await request.collectJSONBody(context: context)
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw APIError(.badRequest, "MALFORMED_JSON", "the request body must be a JSON object")
        }
        let given = ["qr", "link", "push"].filter { object[$0] != nil }
        guard given.count == 1, object.count == 1 else {
            throw APIError(.badRequest, "INVALID_FIELD", "give exactly one of 'qr', 'link' and 'push'")
        }
        switch (given[0], object[given[0]]) {
        case ("qr", let text as String): return try OutOfBandDecoder.decode(qrText: text)
        case ("link", let text as String): return try DeepLink.decode(text)
        case ("push", let message as [String: Any]):
            return try PushDecoder.decode(json: Array(try JSONSerialization.data(withJSONObject: message))).payload()
        case ("push", let text as String): return try PushDecoder.decode(json: Array(text.utf8)).payload()
        case ("push", _): throw APIError(.badRequest, "INVALID_FIELD", "the field 'push' must be an FCM message (an object)")
        default: throw APIError(.badRequest, "INVALID_FIELD", "the field '\(given[0])' must be a string")
        }
    }
}
