import AuthFlow
import BackendAPI
import Foundation
import Hummingbird
import Identifiers
import OutOfBand
import Phone
import PushService
import Retry
import Scenarios
import SodiumKit
import StrictJSON

/// `/api/phones`: the simulated phones, their local data, out-of-band input, and the inbox of
/// pushes the push service holds for each.
struct PhonesController {
    let phones: PhoneService
    /// Where a phone's push registration and inbox change with it.
    let platform: PhonePlatform
    let scanner: QRImageScanner
    let recordings: Recordings

    struct CreatePhone: Codable {
        let name: String
        /// E.164; none: the next free one of the fictional range.
        let number: String?
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

    /// What a scanned code or an opened push started: an AuthPhone flow (`flow`) or a
    /// privacyIDEA request (`privacyIDEA`, docs/privacyidea.md).
    struct Started: ResponseEncodable {
        var flow: Flow?
        var privacyIDEA: PrivacyIDEARequest?

        init(_ opened: PhonePlatform.Opened) {
            switch opened {
            case .flow(let flow): self.flow = flow
            case .privacyIDEA(let request): privacyIDEA = request
            }
        }
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
        routes.post(use: createPhone)
        routes.get(use: listPhones)
        routes.get("{id}", use: phoneDetail)
        routes.delete("{id}", use: deletePhone)
        routes.put("{id}/settings", use: updateSettings)
        routes.post("{id}/flows", use: startFlow)
        routes.post("{id}/sensor/features", use: enrolBiometricFeature)
        routes.delete("{id}/sensor/features", use: removeBiometricFeatures)
        routes.delete("{id}/accounts", use: removeAllAccounts)
        routes.get("{id}/local-data", use: localData)
        routes.post("{id}/local-data/delete-authenticator", use: deleteAuthenticator)
        routes.delete("{id}/accounts/{account}", use: removeAccount)
        routes.get("{id}/device-information", use: deviceInformation)
        routes.put("{id}/device-information", use: changeDeviceInformation)
        routes.post("{id}/fcm-token/rotate", use: rotateToken)
        routes.delete("{id}/operation", use: cancelOperation)
        routes.post("{id}/oob", use: startOutOfBand)
        routes.post("{id}/pin-check", use: checkNewPin)
        routes.post("{id}/otp", use: generateOTP)
        routes.get("{id}/pending", use: pendingOperations)
        routes.post("{id}/oob/image", use: startOutOfBandFromImage)
        routes.get("{id}/inbox", use: inbox)
        routes.post("{id}/inbox", use: pastePush)
        routes.delete("{id}/inbox", use: clearInbox)
        routes.post("{id}/inbox/{message}/open", use: openMessage)
        return routes
    }

    // MARK: the phones

    func createPhone(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<PhoneSummary> {
        let input = try await request.decodeJSON(as: CreatePhone.self, context: context)
        var number: PhoneNumber?
        if let given = input.number {
            do { number = try PhoneNumber(reading: given) } catch { throw APIError(.badRequest, "INVALID_NUMBER", "the field 'number': \(error)") }
        }
        let phone = try await recordings.noting({ try await platform.createPhone(name: input.name, number: number) }) { phone, _ in
            phone.map { .phoneCreated(id: $0.id, name: $0.name, pushToken: $0.fcmToken) }
        }
        return EditedResponse(status: .created, response: phone)
    }

    func listPhones(_ request: Request, context: AppRequestContext) async throws -> PhoneList {
        PhoneList(phones: try await phones.phones())
    }

    func phoneDetail(_ request: Request, context: AppRequestContext) async throws -> PhoneDetail {
        try await phones.phone(id: context.parameters.require("id"))
    }

    /// The phone uninstalled (`PhonePlatform.deletePhone`).
    func deletePhone(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await platform.deletePhone(id: context.parameters.require("id"))
        return Response(status: .noContent)
    }

    func updateSettings(_ request: Request, context: AppRequestContext) async throws -> PhoneDetail {
        let settings = try await request.decodeJSON(as: PhoneSettingsChange.self, context: context)
        return try await phones.update(phoneId: context.parameters.require("id"), settings: settings)
    }

    /// A flow the phone starts itself (CHANGE_PIN, ADD_BIOMETRICS, REMOVE_BIOMETRICS).
    func startFlow(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<FlowStarted> {
        let id = try await phones.phone(id: context.parameters.require("id")).id
        let input = try await request.decodeJSON(as: StartFlow.self, context: context)
        let flow = try await recordings.noting({ try await phones.sdk.startManagement(phoneId: id, type: input.type) }) { _, refusal in
            .flowStarted(phone: id, type: input.type.rawValue, flow: await recordings.flowSeen(phoneId: id), refusal: refusal)
        }
        return EditedResponse(status: .accepted, response: FlowStarted(flow: flow))
    }

    /// The simulated sensor: enrol one more fingerprint or face.
    func enrolBiometricFeature(_ request: Request, context: AppRequestContext) async throws -> PhoneDetail {
        try await request.expectNoBody(context: context)
        let id = try context.parameters.require("id")
        return try await recordings.noting({ try await phones.enrolBiometricFeature(phoneId: id) }) { _, refusal in
            .biometricEnrolled(phone: id, refusal: refusal)
        }
    }

    /// The simulated sensor: remove every enrolled fingerprint or face.
    func removeBiometricFeatures(_ request: Request, context: AppRequestContext) async throws -> PhoneDetail {
        try await phones.removeBiometricFeatures(phoneId: context.parameters.require("id"))
    }

    // MARK: local data

    func removeAllAccounts(_ request: Request, context: AppRequestContext) async throws -> PhoneDetail {
        try await phones.removeAllAccounts(phoneId: context.parameters.require("id"))
    }

    func localData(_ request: Request, context: AppRequestContext) async throws -> LocalData {
        try await phones.localData(phoneId: context.parameters.require("id"))
    }

    /// Nevis's deleteAuthenticator(user, aaid?): this phone's data only.
    func deleteAuthenticator(_ request: Request, context: AppRequestContext) async throws -> LocalData {
        let input = try await request.decodeJSON(as: DeleteAuthenticator.self, context: context)
        return try await phones.deleteAuthenticator(phoneId: context.parameters.require("id"), userId: input.userId, aaid: input.aaid)
    }

    /// Remove one account from the phone and from its backend.
    func removeAccount(_ request: Request, context: AppRequestContext) async throws -> LocalData {
        try await phones.removeAccount(phoneId: context.parameters.require("id"), accountId: context.parameters.require("account"))
    }

    // MARK: device information

    func deviceInformation(_ request: Request, context: AppRequestContext) async throws -> DeviceInformationView {
        try await phones.deviceInformation(context.parameters.require("id"))
    }

    /// The SDK's DeviceInformationChange (docs/behaviour.md#device-information-and-fcm-token-changes), retried under the given policy (or the phone's default).
    func changeDeviceInformation(_ request: Request, context: AppRequestContext) async throws -> DeviceChangeResult {
        let input = try await request.decodeJSON(as: ChangeDeviceInformation.self, context: context)
        let change = DeviceInformationChange(
            name: input.name, fcmToken: input.fcmToken,
            disablePushNotifications: input.disablePushNotifications)
        return try await phones.changeDeviceInformation(
            phoneId: context.parameters.require("id"), change,
            retry: try input.retryPolicy?.policy())
    }

    /// The platform refreshes the phone's FCM token (`PhonePlatform.rotateToken`).
    func rotateToken(_ request: Request, context: AppRequestContext) async throws -> DeviceChangeResult {
        let input = try await request.decodeJSON(as: RotateToken.self, context: context)
        let id = try context.parameters.require("id")
        return try await platform.rotateToken(phoneId: id, retry: try input.retryPolicy?.policy())
    }

    func cancelOperation(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await phones.cancelOperation(phoneId: context.parameters.require("id"))
        return Response(status: .accepted)
    }

    // MARK: sessions

    func startOutOfBand(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try await phones.phone(id: context.parameters.require("id")).id
        let object = try await Self.jsonObject(from: request, context: context)
        return try await recordings.noting({ try await handOver(try Self.scannedCode(object), phoneId: id, request: request, context: context) }) {
            _, refusal in
            // A walk keeps AuthPhone's codes (and one no app reads, by its refusal). A push pasted
            // in is its sender's step; privacyIDEA's, tiqr's and otpauth:// codes carry secrets
            // into a file to share, for apps whose screens a recording does not follow.
            guard let text = object["qr"] as? String ?? object["link"] as? String else { return nil }
            if let code = try? Self.scannedCode(object), case .authPhone = code {} else if refusal == nil { return nil }
            return .codeScanned(phone: id, text: text, flow: await recordings.flowSeen(phoneId: id), refusal: refusal)
        }
    }

    /// A new PIN checked against the policy at its first entry, before the user repeats it.
    func checkNewPin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let input = try await request.decodeJSON(as: CheckPin.self, context: context)
        try await phones.sdk.checkNewPin(phoneId: context.parameters.require("id"), pin: try GuardedBytes.pin(input.pin))
        return Response(status: .noContent)
    }

    /// The offline OTP (docs/behaviour.md#offline-otp) for the scanned session, which it ends.
    func generateOTP(_ request: Request, context: AppRequestContext) async throws -> SessionStart {
        let id = try context.parameters.require("id")
        let input = try await request.decodeJSON(as: GenerateOTP.self, context: context)
        return try await phones.sdk.generateOTP(phoneId: id, accountId: input.account)
    }

    /// The pull fallback: the phone asks its backends what is waiting for it.
    func pendingOperations(_ request: Request, context: AppRequestContext) async throws -> Pending {
        Pending(operations: try await phones.sdk.pendingOperations(phoneId: context.parameters.require("id")))
    }

    /// A picture of a QR code (a screenshot, a photo), as the phone's camera would see it. A
    /// camera's frame (`?frame`) without a code is no error but 204: a camera sends many.
    func startOutOfBandFromImage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try await phones.phone(id: context.parameters.require("id")).id
        let image: ByteBuffer
        do { image = try await request.body.collect(upTo: QRImageScanner.maximumImageSize) } catch {
            throw APIError(.contentTooLarge, "BODY_TOO_LARGE", "the image is larger than \(QRImageScanner.maximumImageSize) bytes")
        }
        let code: ScannedCode
        do { code = try await scanner.code(in: Data(buffer: image)) } catch {
            if error == QRImageScanner.noCode, request.uri.queryParameters["frame"] != nil { return Response(status: .noContent) }
            throw error
        }
        return try await handOver(code, phoneId: id, request: request, context: context)
    }

    /// What a scanned code starts, by what it is: an AuthPhone payload its flow (202 `{"flow"}`),
    /// a key URI an OTP account (201 `{"otpAccount"}`), privacyIDEA's push token enrolment,
    /// container registration or tiqr code its request on screen (202 `{"privacyIDEA"}`, docs/privacyidea.md).
    private func handOver(_ code: ScannedCode, phoneId: String, request: Request, context: AppRequestContext) async throws -> Response {
        switch code {
        case .authPhone(let payload):
            let flow = try await phones.sdk.startOutOfBand(phoneId: phoneId, payload: payload)
            return try EditedResponse(status: .accepted, response: FlowStarted(flow: flow)).response(from: request, context: context)
        case .otpAccount(let uri):
            let account = try await phones.importOTPAccount(phoneId: phoneId, uri: uri)
            return try EditedResponse(status: .created, response: OTPAccountImported(otpAccount: account)).response(from: request, context: context)
        case .privacyIDEAPush(let uri):
            let shown = try await phones.privacyIDEA.startEnrolment(phoneId: phoneId, text: uri)
            return try EditedResponse(status: .accepted, response: Started(.privacyIDEA(shown))).response(from: request, context: context)
        case .privacyIDEAContainer(let uri):
            let shown = try await phones.privacyIDEA.startContainerRegistration(phoneId: phoneId, text: uri)
            return try EditedResponse(status: .accepted, response: Started(.privacyIDEA(shown))).response(from: request, context: context)
        case .tiqrEnrolment(let uri):
            let shown = try await phones.privacyIDEA.startTiqrEnrolment(phoneId: phoneId, text: uri)
            return try EditedResponse(status: .accepted, response: Started(.privacyIDEA(shown))).response(from: request, context: context)
        case .tiqrLogin(let uri):
            let shown = try await phones.privacyIDEA.startTiqrLogin(phoneId: phoneId, text: uri)
            return try EditedResponse(status: .accepted, response: Started(.privacyIDEA(shown))).response(from: request, context: context)
        }
    }

    // MARK: the inbox

    func inbox(_ request: Request, context: AppRequestContext) async throws -> Inbox {
        Inbox(messages: try await platform.inbox(phoneId: context.parameters.require("id")))
    }

    /// A push pasted on the phone (docs/behaviour.md#out-of-band-payloads): into the inbox as if FCM had
    /// delivered it, so its notification shows (or, with openPushesAtOnce, it opens).
    func pastePush(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<PushService.InboxMessage> {
        let message = try await platform.receive(phoneId: context.parameters.require("id")) {
            try await Self.pastedPush(from: request, context: context)
        }
        return EditedResponse(status: .created, response: message)
    }

    func clearInbox(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await platform.clearInbox(phoneId: context.parameters.require("id"))
        return Response(status: .noContent)
    }

    /// Opening a notification: the app decodes the push and starts the operation. The
    /// message leaves the inbox only once the operation has started.
    func openMessage(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Started> {
        try await request.expectNoBody(context: context)
        let phoneId = try context.parameters.require("id")
        let opened = try await recordings.noting({ try await platform.open(messageId: context.parameters.require("message"), phoneId: phoneId) }) {
            _, refusal in .pushOpened(phone: phoneId, flow: await recordings.flowSeen(phoneId: phoneId), refusal: refusal)
        }
        return EditedResponse(status: .accepted, response: Started(opened))
    }

    /// `{"qr": text}`, `{"link": url}` or `{"push": FCM JSON}`: exactly one of them.
    static func scannedCode(_ object: [String: Any]) throws -> ScannedCode {
        let given = ["qr", "link", "push"].filter { object[$0] != nil }
        guard given.count == 1, object.count == 1 else {
            throw APIError(.badRequest, "INVALID_FIELD", "give exactly one of 'qr', 'link' and 'push'")
        }
        switch (given[0], object[given[0]]) {
        case ("qr", let text as String): return try ScannedCode(qrText: text)
        case ("link", let text as String): return try ScannedCode(link: text)
        case ("push", let message?): return .authPhone(try pushMessage(message).payload())
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
        if PhoneAppName.claiming(push: message.data) == .authPhone { _ = try message.payload() }
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
