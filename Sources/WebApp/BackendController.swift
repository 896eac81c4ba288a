import Backend
import BackendAPI
import Hummingbird

/// `BackendRoutes.root`: the console's view of the demo backend, and the wire its phones speak.
struct BackendController {
    let backend: DemoBackend

    struct CreateSession: Codable {
        enum Delivery: String, Codable {
            case qr, push
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

    var endpoints: RouteCollection<AppRequestContext> {
        typealias Template = BackendRoutes.Template
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post(RouterPath(Template.sessions)) { request, context -> EditedResponse<BackendSession> in
            let input = try await request.decodeJSON(as: CreateSession.self, context: context)
            if input.delivery == .qr, input.pushToken != nil {
                throw APIError(.badRequest, "INVALID_FIELD", "the field 'pushToken' goes with \"delivery\": \"push\"")
            }
            let delivery: DemoBackend.Delivery = input.delivery == .push || input.pushToken != nil ? .push(token: input.pushToken) : .qr
            let session = try await backend.createSession(
                type: input.type, userId: input.userId, displayName: input.displayName,
                transaction: input.transaction, accountId: input.accountId, delivery: delivery,
                announceInfo: input.announceInfo, announceLogo: input.announceLogo,
                skipConfirmation: input.skipConfirmation, skipSecondFactor: input.skipSecondFactor)
            return EditedResponse(status: .created, response: session)
        }
        routes.get(RouterPath(Template.secondFactorPolicy)) { _, _ in PolicyView(try await backend.secondFactorPolicy()) }
        routes.put(RouterPath(Template.secondFactorPolicy)) { request, context in
            let change = try await request.decodeJSON(as: PolicyChange.self, context: context)
            return PolicyView(try await backend.setSecondFactorPolicy(change.policy()))
        }
        routes.get(RouterPath(Template.serverFlags)) { _, _ in ServerFlags(flags: try await backend.serverFlags()) }
        routes.put(RouterPath(Template.serverFlags)) { request, context in
            let change = try await request.decodeJSON(as: ServerFlags.self, context: context)
            return ServerFlags(flags: try await backend.setServerFlags(change.flags))
        }
        routes.get(RouterPath(Template.sessions)) { _, _ in SessionList(sessions: try await backend.recentSessions()) }
        routes.get(RouterPath(Template.session)) { _, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            return try await backend.session(id: id)
        }
        // The relying party's side of the offline OTP (docs/behaviour.md#offline-otp): the OTP the user read off the phone.
        routes.post(RouterPath(Template.otpLogin)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: OTPLogin.self, context: context)
            return try await backend.otpLogin(sessionId: id, otp: input.otp)
        }
        routes.post(RouterPath(Template.push)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: PushSession.self, context: context)
            return try await backend.pushSession(id: id, to: input.pushToken)
        }
        routes.get(RouterPath(Template.qrImage)) { _, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let svg = try await backend.qrCodeSVG(sessionId: id)
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: svg)))
        }

        // The phone's side: each takes the wire request and answers the wire response.
        routes.post(RouterPath(Template.redeem)) { request, context in
            let input = try await request.decodeJSON(as: RedeemRequest.self, context: context)
            return try await backend.redeem(input)
        }
        routes.post(RouterPath(Template.confirm)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: ConfirmRequest.self, context: context)
            return try await backend.confirm(sessionId: id, input)
        }
        routes.post(RouterPath(Template.enrol)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: EnrolRequest.self, context: context)
            return try await backend.enrol(sessionId: id, input)
        }
        routes.post(RouterPath(Template.verifySecondFactor)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: VerifyPinRequest.self, context: context)
            return try await backend.verifySecondFactor(sessionId: id, input)
        }
        routes.post(RouterPath(Template.confirmTransaction)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: TransactionConfirmRequest.self, context: context)
            return try await backend.confirmTransaction(sessionId: id, input)
        }
        routes.post(RouterPath(Template.devices)) { request, context in
            try await backend.changeDeviceInformation(request.decodeJSON(as: DeviceInformationChangeRequest.self, context: context))
        }
        routes.post(RouterPath(Template.accountRemoval)) { request, context in
            try await backend.removeAccount(request.decodeJSON(as: AccountRemovalRequest.self, context: context))
            return Acknowledged()
        }
        routes.post(RouterPath(Template.management)) { request, context in
            try await backend.startManagement(request.decodeJSON(as: ManagementRequest.self, context: context))
        }
        routes.post(RouterPath(Template.setSecondFactor)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: SetSecondFactorRequest.self, context: context)
            return try await backend.setSecondFactor(sessionId: id, input)
        }
        routes.post(RouterPath(Template.rotate)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: RotateKeyRequest.self, context: context)
            try await backend.rotateKey(sessionId: id, input)
            return Acknowledged()
        }
        routes.post(RouterPath(Template.pending)) { request, context in
            try await backend.pendingOperations(request.decodeJSON(as: PendingRequest.self, context: context))
        }
        routes.post(RouterPath(Template.abandon)) { request, context in
            let id = try context.parameters.require(BackendRoutes.sessionParameter)
            let input = try await request.decodeJSON(as: AbandonRequest.self, context: context)
            try await backend.abandon(sessionId: id, input)
            return Acknowledged()
        }
        return routes
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
