import AuthFlow
import BackendAPI
import Foundation
import Hummingbird
import OutOfBand
import Phone
import PushService
import Retry
import SodiumKit
import StrictJSON

/// `/api/phones`: the simulated phones, their local data, out-of-band input, and the inbox of
/// pushes the push service holds for each.
struct PhonesController {
    let phones: PhoneService
    let push: PushService
    let scanner: QRImageScanner
    /// Told of a deleted phone, whose flow stops without a final update.
    let monitor: ServiceMonitor

    struct CreatePhone: Codable {
        let name: String
    }

    struct PhoneList: ResponseEncodable {
        let phones: [PhoneSummary]
    }

    /// `{"pin"}`: a new PIN as first typed.
    struct CheckPin: Codable {
        let pin: String
    }

    struct FlowStarted: ResponseEncodable {
        let flow: Flow
    }

    /// `{"name"?, "fcmToken"?, "disablePushNotifications"?, "retryPolicy"?}`.
    struct ChangeDeviceInformation: Codable {
        let name: String?
        let fcmToken: String?
        let disablePushNotifications: Bool?
        let retryPolicy: RetryPolicyBody?
    }

    struct DeleteAuthenticator: Codable {
        let userId: String
        let aaid: String?
    }

    /// `{"retryPolicy"?}` for a token refresh.
    struct RotateToken: Codable {
        let retryPolicy: RetryPolicyBody?
    }

    /// nextAuth's generateOTP: the account to generate it for (needed with several).
    struct GenerateOTP: Codable {
        let account: String?
    }

    /// A flow the phone starts itself.
    struct StartFlow: Codable {
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
        // The phone uninstalled: its token answers UNREGISTERED from now on, its inbox is gone.
        routes.delete("{id}") { _, context -> Response in
            let id = try context.parameters.require("id")
            let token = try await phones.deletePhone(id: id)
            monitor.forgot(phoneId: id, outcome: "PHONE_DELETED")
            try await push.clearInbox(token: token)
            try await push.retire(token: token)
            return Response(status: .noContent)
        }
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
        routes.post("{id}/sensor/features") { request, context in
            try await request.expectNoBody(context: context)
            return try await phones.enrolBiometricFeature(phoneId: context.parameters.require("id"))
        }
        routes.delete("{id}/sensor/features") { _, context in
            try await phones.removeBiometricFeatures(phoneId: context.parameters.require("id"))
        }
        routes.delete("{id}/accounts") { _, context in
            try await phones.removeAllAccounts(phoneId: context.parameters.require("id"))
        }
        routes.get("{id}/local-data") { _, context in
            try await phones.localData(phoneId: context.parameters.require("id"))
        }
        // Nevis's deleteAuthenticator(user, aaid?): this phone's data only.
        routes.post("{id}/local-data/delete-authenticator") { request, context in
            let input = try await request.decodeJSON(as: DeleteAuthenticator.self, context: context)
            return try await phones.deleteAuthenticator(phoneId: context.parameters.require("id"), userId: input.userId, aaid: input.aaid)
        }
        // Remove one account from the phone and from its backend.
        routes.delete("{id}/accounts/{account}") { _, context in
            try await phones.removeAccount(phoneId: context.parameters.require("id"), accountId: context.parameters.require("account"))
        }
        routes.get("{id}/device-information") { _, context in
            try await phones.deviceInformation(context.parameters.require("id"))
        }
        // The SDK's DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes), retried under the given policy (or the phone's default).
        routes.put("{id}/device-information") { request, context in
            let input = try await request.decodeJSON(as: ChangeDeviceInformation.self, context: context)
            let change = DeviceInformationChange(
                name: input.name, fcmToken: input.fcmToken,
                disablePushNotifications: input.disablePushNotifications)
            return try await phones.changeDeviceInformation(
                phoneId: context.parameters.require("id"), change,
                retry: try input.retryPolicy?.policy())
        }
        // The platform refreshes the phone's FCM token: the old one answers UNREGISTERED at once;
        // the phone tells its backends of the new one, retrying, and until it lands their pushes fail.
        routes.post("{id}/fcm-token/rotate") { request, context in
            let input = try await request.decodeJSON(as: RotateToken.self, context: context)
            let id = try context.parameters.require("id")
            let retry = try input.retryPolicy?.policy()
            let (old, new) = try await phones.refreshFCMToken(phoneId: id)
            try await push.register(token: new)
            try await push.retire(token: old)
            return try await phones.changeDeviceInformation(phoneId: id, DeviceInformationChange(fcmToken: new), retry: retry)
        }
        routes.delete("{id}/operation") { _, context -> Response in
            try await phones.cancelOperation(phoneId: context.parameters.require("id"))
            return Response(status: .accepted)
        }
        routes.post("{id}/oob") { request, context -> EditedResponse<FlowStarted> in
            let id = try await phones.phone(id: context.parameters.require("id")).id
            let payload = try await Self.payload(from: request, context: context)
            let flow = try await phones.startOutOfBand(phoneId: id, payload: payload)
            return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
        }
        // A new PIN checked against the policy at its first entry, before the user repeats it.
        routes.post("{id}/pin-check") { request, context -> Response in
            let input = try await request.decodeJSON(as: CheckPin.self, context: context)
            try await phones.checkNewPin(phoneId: context.parameters.require("id"), pin: try GuardedBytes.pin(input.pin))
            return Response(status: .noContent)
        }
        // The offline OTP (docs/behaviour.md#offline-otp) for the scanned session, which it ends.
        routes.post("{id}/otp") { request, context in
            let id = try context.parameters.require("id")
            let input = try await request.decodeJSON(as: GenerateOTP.self, context: context)
            return try await phones.generateOTP(phoneId: id, accountId: input.account)
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
            let flow = try await phones.startOutOfBand(phoneId: id, payload: scanner.payload(in: Data(buffer: image)))
            return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
        }
        routes.get("{id}/inbox") { _, context in
            let phone = try await phones.phone(id: context.parameters.require("id"))
            return Inbox(messages: try await push.inbox(token: phone.fcmToken))
        }
        // A push pasted on the phone (docs/behaviour.md#out-of-band-payloads): into the inbox as if FCM had
        // delivered it, so its notification shows (or, with openPushesAtOnce, it opens).
        routes.post("{id}/inbox") { request, context -> EditedResponse<PushService.InboxMessage> in
            let phone = try await phones.phone(id: context.parameters.require("id"))
            let message = try await Self.pastedPush(from: request, context: context)
            return EditedResponse(status: .created, response: try await push.receive(message, token: phone.fcmToken))
        }
        routes.delete("{id}/inbox") { _, context -> Response in
            let phone = try await phones.phone(id: context.parameters.require("id"))
            try await push.clearInbox(token: phone.fcmToken)
            return Response(status: .noContent)
        }
        // Opening a notification: the app decodes the push and starts the operation. The
        // message leaves the inbox only once the operation has started.
        routes.post("{id}/inbox/{message}/open") { request, context -> EditedResponse<FlowStarted> in
            try await request.expectNoBody(context: context)
            let phone = try await phones.phone(id: context.parameters.require("id"))
            let messageId = try context.parameters.require("message")
            guard let message = try await push.inbox(token: phone.fcmToken).first(where: { $0.id == messageId }) else {
                throw APIError(.notFound, "MESSAGE_NOT_FOUND", "no message \(messageId) in this phone's inbox")
            }
            let flow = try await PushOpener.start(message, token: phone.fcmToken, push: push) {
                try await phones.startOutOfBand(phoneId: phone.id, payload: message.message.payload())
            }
            return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
        }
        return routes
    }

    /// `{"qr": text}`, `{"link": url}` or `{"push": FCM JSON}`: exactly one of them.
    static func payload(from request: Request, context: AppRequestContext) async throws -> OutOfBandPayload {
        let object = try await jsonObject(from: request, context: context)
        let given = ["qr", "link", "push"].filter { object[$0] != nil }
        guard given.count == 1, object.count == 1 else {
            throw APIError(.badRequest, "INVALID_FIELD", "give exactly one of 'qr', 'link' and 'push'")
        }
        switch (given[0], object[given[0]]) {
        case ("qr", let text as String): return try OutOfBandDecoder.decode(qrText: text)
        case ("link", let text as String): return try DeepLink.decode(text)
        case ("push", let message?): return try pushMessage(message).payload()
        default: throw APIError(.badRequest, "INVALID_FIELD", "the field '\(given[0])' must be a string")
        }
    }

    /// `{"push": FCM JSON}` and nothing else: a push that carries a payload, in any shape
    /// `PushDecoder` reads.
    static func pastedPush(from request: Request, context: AppRequestContext) async throws -> PushMessage {
        let object = try await jsonObject(from: request, context: context)
        guard let value = object["push"], object.count == 1 else {
            throw APIError(.badRequest, "INVALID_FIELD", "give the field 'push' (an FCM message) and nothing else")
        }
        let message = try pushMessage(value)
        _ = try message.payload()
        return message
    }

    /// The field `push`: an FCM message as a JSON object, or as text holding one.
    private static func pushMessage(_ value: Any) throws -> PushMessage {
        switch value {
        case let message as [String: Any]: return try PushDecoder.decode(json: Array(try JSONSerialization.data(withJSONObject: message)))
        case let text as String: return try PushDecoder.decode(json: Array(text.utf8))
        default: throw APIError(.badRequest, "INVALID_FIELD", "the field 'push' must be an FCM message (an object)")
        }
    }

    private static func jsonObject(from request: Request, context: AppRequestContext) async throws -> [String: Any] {
        let body = try await request.collectJSONBody(context: context)
        do { _ = try StrictJSON.scan(body) } catch {
            throw APIError(.badRequest, "MALFORMED_JSON", "the request body is not strict JSON: \(error.message)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw APIError(.badRequest, "MALFORMED_JSON", "the request body must be a JSON object")
        }
        return object
    }
}

extension DeviceChangeResult: ResponseEncodable {}
extension DeviceInformationView: ResponseEncodable {}
extension LocalData: ResponseEncodable {}

/// A retry policy as JSON: `{"type": "none"}`, `{"type": "constant", "maxRetries", "delay"}` or
/// `{"type": "exponential", "maxRetries", "initialDelay", "maximumDelay", "multiplier"}`, delays
/// in seconds. Exponential waits use full jitter.
struct RetryPolicyBody: Codable {
    let type: String
    let maxRetries: Int?
    let delay: Double?
    let initialDelay: Double?
    let maximumDelay: Double?
    let multiplier: Double?

    func policy() throws -> RetryPolicy {
        func duration(_ value: Double?, _ field: String) throws -> Duration {
            guard let value else { throw APIError(.badRequest, "INVALID_RETRY_POLICY", "the field '\(field)' is required for a \(type) policy") }
            guard value.isFinite, value >= 0, value <= 3600 else {
                throw APIError(.badRequest, "INVALID_RETRY_POLICY", "the field '\(field)' must be between 0 and 3600 seconds")
            }
            return .milliseconds(Int((value * 1000).rounded()))
        }
        func retries() throws -> Int {
            guard let maxRetries else {
                throw APIError(.badRequest, "INVALID_RETRY_POLICY", "the field 'maxRetries' is required for a \(type) policy")
            }
            return maxRetries
        }
        let policy: RetryPolicy
        switch type {
        case "none": policy = .none
        case "constant": policy = .constant(maxRetries: try retries(), delay: try duration(delay, "delay"))
        case "exponential":
            guard let multiplier else {
                throw APIError(.badRequest, "INVALID_RETRY_POLICY", "the field 'multiplier' is required for an exponential policy")
            }
            policy = .exponential(
                maxRetries: try retries(), initialDelay: try duration(initialDelay, "initialDelay"),
                maximumDelay: try duration(maximumDelay, "maximumDelay"), multiplier: multiplier)
        default: throw APIError(.badRequest, "INVALID_RETRY_POLICY", "the field 'type' must be none, constant or exponential")
        }
        do { return try policy.validated() } catch { throw APIError(.badRequest, error.code, error.message) }
    }
}
