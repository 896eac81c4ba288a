import AuthFlow
import Backend
import BackendAPI
import Hummingbird
import Scenarios

/// `BackendRoutes.root`: the console's view of the demo backend, and the wire its phones speak.
struct BackendController {
    let backend: DemoBackend
    let recordings: Recordings

    struct CreateSession: Codable {
        enum Delivery: String, Codable {
            case qr, push, external
        }
        let type: WireSessionType
        let userId: String
        let displayName: String?
        /// A transaction's text (type `transaction` only).
        let transaction: String?
        /// A login or transaction for this account only (the phone offers no choice).
        let accountId: String?
        /// `qr` (default) or `push`; a push goes to `pushToken`, or else to the user's devices.
        let delivery: Delivery?
        let pushToken: String?
        /// What the phone shows with the session (seed 001): strings by key and a logo.
        let announceInfo: [String: String]?
        let announceLogo: String?
        /// The steps the configuration skips for this session (seed 001); absent: the server flags' defaults.
        let skipConfirmation: Bool?
        let skipSecondFactor: Bool?
    }

    /// The console's "Push to phone": the phone's registration token.
    struct PushSession: Codable {
        let pushToken: String
    }

    struct SessionList: ResponseEncodable {
        let sessions: [BackendSession]
    }

    /// A preset by name, or the two numbers; never both.
    struct PolicyChange: Codable {
        let preset: String?
        let maxAttempts: Int?
        let penalties: [Int]?

        func policy() throws -> SecondFactorPolicy {
            switch (preset, maxAttempts) {
            case (let preset?, nil) where penalties == nil:
                guard let policy = SecondFactorPolicy.presets[preset] else {
                    let names = SecondFactorPolicy.presets.keys.sorted().map { "'\($0)'" }.joined(separator: " or ")
                    throw APIError(.badRequest, "INVALID_FIELD", "the field 'preset' must be \(names)")
                }
                return policy
            case (nil, let maxAttempts?):
                return SecondFactorPolicy(maxAttempts: maxAttempts, penalties: penalties ?? [])
            default:
                throw APIError(.badRequest, "INVALID_FIELD", "give either 'preset' or 'maxAttempts' (with 'penalties')")
            }
        }
    }

    /// The policy in force, its preset's name (null when custom), and the presets to choose from.
    struct PolicyView: ResponseEncodable {
        let maxAttempts: Int
        let penalties: [Int]
        let preset: String?
        let presets: [String: SecondFactorPolicy]

        init(_ policy: SecondFactorPolicy) {
            maxAttempts = policy.maxAttempts
            penalties = policy.penalties
            preset = policy.presetName
            presets = SecondFactorPolicy.presets
        }
    }

    /// What a relying party sends to log a session in with an offline OTP.
    struct OTPLogin: Codable {
        let otp: String
    }

    /// nextAuth's serverFlags by name: the answer, and a change (only the flags given).
    struct ServerFlags: Codable, ResponseEncodable {
        let flags: [String: Bool]
    }

    /// The backend as an enrolling phone shows it, with the visual hash it asks the user to compare.
    struct ServerView: ResponseEncodable {
        let name: String
        let url: String
        let publicKey: String
        let visualHash: VisualHash

        init(_ server: WireServer) {
            name = server.name
            url = server.url
            publicKey = server.publicKey
            visualHash = VisualHash.of(name: server.name, url: server.url, publicKey: server.publicKey)
        }
    }

    /// Whose PIN to unblock, and the answer: how many of the user's devices were blocked or counting.
    struct UnblockPin: Codable {
        let userId: String
    }
    struct UnblockedPin: ResponseEncodable {
        let userId: String
        let unblockedDevices: Int
    }

    var endpoints: RouteCollection<AppRequestContext> {
        typealias Template = BackendRoutes.Template
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post(RouterPath(Template.sessions), use: createSession)
        routes.get(RouterPath(Template.secondFactorPolicy), use: secondFactorPolicy)
        routes.put(RouterPath(Template.secondFactorPolicy), use: setSecondFactorPolicy)
        routes.get(RouterPath(Template.serverFlags), use: serverFlags)
        routes.put(RouterPath(Template.serverFlags), use: setServerFlags)
        routes.get(RouterPath(Template.server)) { _, _ in ServerView(backend.server) }
        routes.post(RouterPath(Template.unblockPin), use: unblockPin)
        routes.get(RouterPath(Template.sessions), use: recentSessions)
        routes.get(RouterPath(Template.session), use: session)
        routes.post(RouterPath(Template.otpLogin), use: otpLogin)
        routes.post(RouterPath(Template.push), use: pushSession)
        routes.get(RouterPath(Template.qrImage), use: qrImage)

        // The phone's side: each takes the wire request and answers the wire response.
        routes.post(RouterPath(Template.redeem), use: redeem)
        routes.post(RouterPath(Template.confirm), use: confirm)
        routes.post(RouterPath(Template.enrol), use: enrol)
        routes.post(RouterPath(Template.verifySecondFactor), use: verifySecondFactor)
        routes.post(RouterPath(Template.confirmTransaction), use: confirmTransaction)
        routes.post(RouterPath(Template.devices), use: changeDeviceInformation)
        routes.post(RouterPath(Template.accountRemoval), use: removeAccount)
        routes.post(RouterPath(Template.management), use: startManagement)
        routes.post(RouterPath(Template.setSecondFactor), use: setSecondFactor)
        routes.post(RouterPath(Template.rotate), use: rotateKey)
        routes.post(RouterPath(Template.pending), use: pendingOperations)
        routes.post(RouterPath(Template.abandon), use: abandon)
        return routes
    }

    /// The session named by the route's path.
    private static func sessionId(_ context: AppRequestContext) throws -> String {
        try context.parameters.require(BackendRoutes.sessionParameter)
    }

    // MARK: the console's side

    func createSession(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<BackendSession> {
        let input = try await request.decodeJSON(as: CreateSession.self, context: context)
        if input.delivery ?? .push != .push, input.pushToken != nil {
            throw APIError(.badRequest, "INVALID_FIELD", "the field 'pushToken' goes with \"delivery\": \"push\"")
        }
        let delivery: DemoBackend.Delivery =
            switch input.delivery {
            case .external: .external
            case .push: .push(token: input.pushToken)
            case .qr, nil: input.pushToken == nil ? .qr : .push(token: input.pushToken)
            }
        let session = try await recordings.noting({
            try await backend.createSession(
                type: input.type, userId: input.userId, displayName: input.displayName,
                transaction: input.transaction, accountId: input.accountId, delivery: delivery,
                announceInfo: input.announceInfo, announceLogo: input.announceLogo,
                skipConfirmation: input.skipConfirmation, skipSecondFactor: input.skipSecondFactor)
        }) { session, refusal in
            .sessionStarted(
                fields: Recordings.fields(of: input), started: session.map { StartedSession(id: $0.id, qrText: $0.qrText, deepLink: $0.deepLink) },
                refusal: refusal)
        }
        return EditedResponse(status: .created, response: session)
    }

    func secondFactorPolicy(_ request: Request, context: AppRequestContext) async throws -> PolicyView {
        PolicyView(try await backend.secondFactorPolicy())
    }

    func setSecondFactorPolicy(_ request: Request, context: AppRequestContext) async throws -> PolicyView {
        let change = try await request.decodeJSON(as: PolicyChange.self, context: context)
        return PolicyView(try await backend.setSecondFactorPolicy(change.policy()))
    }

    func serverFlags(_ request: Request, context: AppRequestContext) async throws -> ServerFlags {
        ServerFlags(flags: try await backend.serverFlags())
    }

    func setServerFlags(_ request: Request, context: AppRequestContext) async throws -> ServerFlags {
        let change = try await request.decodeJSON(as: ServerFlags.self, context: context)
        return ServerFlags(flags: try await backend.setServerFlags(change.flags))
    }

    func unblockPin(_ request: Request, context: AppRequestContext) async throws -> UnblockedPin {
        let input = try await request.decodeJSON(as: UnblockPin.self, context: context)
        let unblocked = try await recordings.noting({ try await backend.unblockPin(userId: input.userId) }) { _, refusal in
            .pinUnblocked(user: input.userId, refusal: refusal)
        }
        return UnblockedPin(userId: input.userId, unblockedDevices: unblocked)
    }

    func recentSessions(_ request: Request, context: AppRequestContext) async throws -> SessionList {
        SessionList(sessions: try await backend.recentSessions())
    }

    func session(_ request: Request, context: AppRequestContext) async throws -> BackendSession {
        try await backend.session(id: Self.sessionId(context))
    }

    /// The relying party's side of the offline OTP (docs/behaviour.md#offline-otp): the OTP the user read off the phone.
    func otpLogin(_ request: Request, context: AppRequestContext) async throws -> BackendSession {
        let id = try Self.sessionId(context)
        let input = try await request.decodeJSON(as: OTPLogin.self, context: context)
        return try await backend.otpLogin(sessionId: id, otp: input.otp)
    }

    func pushSession(_ request: Request, context: AppRequestContext) async throws -> BackendSession {
        let id = try Self.sessionId(context)
        let input = try await request.decodeJSON(as: PushSession.self, context: context)
        return try await recordings.noting({ try await backend.pushSession(id: id, to: input.pushToken) }) { _, refusal in
            .sessionPushed(session: id, pushToken: input.pushToken, refusal: refusal)
        }
    }

    func qrImage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let svg = try await backend.qrCodeSVG(sessionId: Self.sessionId(context))
        return Response(
            status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: svg)))
    }

    // MARK: the phone's side

    func redeem(_ request: Request, context: AppRequestContext) async throws -> RedeemResponse {
        try await backend.redeem(request.decodeJSON(as: RedeemRequest.self, context: context))
    }

    func confirm(_ request: Request, context: AppRequestContext) async throws -> ConfirmResponse {
        try await backend.confirm(sessionId: Self.sessionId(context), request.decodeJSON(as: ConfirmRequest.self, context: context))
    }

    func enrol(_ request: Request, context: AppRequestContext) async throws -> SecondFactorResponse {
        try await backend.enrol(sessionId: Self.sessionId(context), request.decodeJSON(as: EnrolRequest.self, context: context))
    }

    func verifySecondFactor(_ request: Request, context: AppRequestContext) async throws -> SecondFactorResponse {
        try await backend.verifySecondFactor(sessionId: Self.sessionId(context), request.decodeJSON(as: VerifyPinRequest.self, context: context))
    }

    func confirmTransaction(_ request: Request, context: AppRequestContext) async throws -> TransactionConfirmResponse {
        try await backend.confirmTransaction(
            sessionId: Self.sessionId(context), request.decodeJSON(as: TransactionConfirmRequest.self, context: context))
    }

    func changeDeviceInformation(_ request: Request, context: AppRequestContext) async throws -> DeviceInformation {
        try await backend.changeDeviceInformation(request.decodeJSON(as: DeviceInformationChangeRequest.self, context: context))
    }

    func removeAccount(_ request: Request, context: AppRequestContext) async throws -> Acknowledged {
        try await backend.removeAccount(request.decodeJSON(as: AccountRemovalRequest.self, context: context))
        return Acknowledged()
    }

    func startManagement(_ request: Request, context: AppRequestContext) async throws -> ManagementResponse {
        try await backend.startManagement(request.decodeJSON(as: ManagementRequest.self, context: context))
    }

    func setSecondFactor(_ request: Request, context: AppRequestContext) async throws -> SecondFactorResponse {
        try await backend.setSecondFactor(sessionId: Self.sessionId(context), request.decodeJSON(as: SetSecondFactorRequest.self, context: context))
    }

    func rotateKey(_ request: Request, context: AppRequestContext) async throws -> Acknowledged {
        try await backend.rotateKey(sessionId: Self.sessionId(context), request.decodeJSON(as: RotateKeyRequest.self, context: context))
        return Acknowledged()
    }

    func pendingOperations(_ request: Request, context: AppRequestContext) async throws -> PendingResponse {
        try await backend.pendingOperations(request.decodeJSON(as: PendingRequest.self, context: context))
    }

    func abandon(_ request: Request, context: AppRequestContext) async throws -> Acknowledged {
        try await backend.abandon(sessionId: Self.sessionId(context), request.decodeJSON(as: AbandonRequest.self, context: context))
        return Acknowledged()
    }
}

extension RedeemResponse: ResponseEncodable {}
extension ConfirmResponse: ResponseEncodable {}
extension TransactionConfirmResponse: ResponseEncodable {}
extension SecondFactorResponse: ResponseEncodable {}
extension Acknowledged: ResponseEncodable {}
extension PendingResponse: ResponseEncodable {}
extension ManagementResponse: ResponseEncodable {}
extension DeviceInformation: ResponseEncodable {}
