import Backend
import BackendAPI
import Faults
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import Mustache
import NIOCore
import NIOSSL
import OutOfBand
import Phone
import PushService
import SMSGateway
import ServiceLifecycle
import SodiumKit
import Timeline

/// Builds AuthPhone: the demo backend, the simulated phones and the pages, on one server.
/// `authphone serve` and the tests both call this.
public func buildApplication(_ configuration: AppConfiguration, logger: Logger = Logger(label: "authphone"))
    async throws -> some ApplicationProtocol
{
    // an IPv6 address may come as a URL writes it, in brackets
    let listenHost = Doors.bare(configuration.host)
    let selfURL = try ServerURL(
        publicURL: configuration.publicURL, listenHost: listenHost, port: configuration.port, secure: configuration.tls != nil)
    let accessKey = try configuration.accessKey ?? (Doors.isLoopback(listenHost) ? nil : Base64URL.encode(Sodium.randomBytes(24)))
    // This server's own parts reach each other over HTTP, through the same doors as anyone: a
    // key goes to this server's own URLs only.
    func bearer(_ key: String?) -> @Sendable (String) -> String? {
        { url in key.flatMap { url.hasPrefix(selfURL.get() + "/") ? "Bearer \($0)" : nil } }
    }
    let startedAt = configuration.now()
    let monitor = ServiceMonitor(logger: logger)
    let (phoneStore, backendStore, pushStore, timelineStore, smsStore) = try await openDatabases(configuration, logger: logger)
    let tls = try configuration.tls.map {
        try ServerTLS.load(
            $0,
            names: Doors.hostNames(listenHost: listenHost, publicURL: configuration.publicURL, instanceURL: configuration.instanceURL)
                .sorted(),
            dataDirectory: configuration.dataDirectory, now: configuration.now(), logger: logger)
    }
    // the parts reach each other at the server's HTTPS address too
    let wireClient = try tls?.ownWire()
    if let seed = configuration.seed {
        try await seedDatabases(seed, phones: phoneStore, backend: backendStore, now: configuration.now(), logger: logger)
    }
    let timeline = Timeline(
        store: timelineStore,
        bounds: TimelineBounds(perSession: configuration.timelinePerSession, perPhone: configuration.timelinePerPhone))
    let observe: WireExchange.Observer? = configuration.recordTimeline ? timeline.record : nil
    let faults = FaultInjector(now: configuration.now, random: configuration.random)
    var backendConfiguration = configuration.backend
    backendConfiguration.retryObserver = { monitor.retried("push") }
    let backend = try await DemoBackend(
        store: backendStore, configuration: backendConfiguration,
        baseURL: { selfURL.get() }, now: configuration.now,
        wire: WireHTTPClient(
            http: wireClient ?? WireHTTPClient.noRedirects, authorization: bearer(configuration.pushToken ?? accessKey), observe: observe),
        sleep: configuration.sleep, faults: faults)
    let backendURL = configuration.backendURL
    let lanes = BlockingWorkLanes(configuration)
    var phoneConfiguration = PhoneService.Configuration(
        allowedBackends: { [backendURL ?? selfURL.get()] },
        pinDerivation: PinKeyDerivation(profile: configuration.pinDerivation),
        authorization: bearer(accessKey), observe: observe,
        sleep: configuration.sleep, random: configuration.random)
    phoneConfiguration.pinLane = lanes.pins
    phoneConfiguration.keyLane = lanes.keys
    phoneConfiguration.flowObserver = { monitor.flowUpdated(phoneId: $0, $1) }
    phoneConfiguration.retryObserver = { monitor.retried($0) }
    let phones = PhoneService(
        store: phoneStore, configuration: phoneConfiguration, http: wireClient ?? WireHTTPClient.noRedirects, now: configuration.now, faults: faults)
    let push = PushService(
        store: pushStore, configuration: configuration.push, now: configuration.now,
        faults: faults, sleep: configuration.sleep)
    try await push.register(tokens: phones.phones().map(\.fcmToken))
    let sms = SMSGateway(
        store: smsStore,
        phones: .init(
            find: { try await phones.messages.phoneId(number: $0) },
            deliver: { try await phones.messages.receive(id: $0, to: $1.to, from: $1.from, text: $1.body)?.phoneId }),
        configuration: configuration.sms, now: configuration.now, faults: faults, sleep: configuration.sleep)
    // several instances on one PostgreSQL: each phone's flow runs on one, its home
    let instanceURL = try ServerURL(publicURL: configuration.instanceURL, listenHost: listenHost, port: configuration.port)
    let platform = PhonePlatform(phones: phones, push: push, monitor: monitor)
    let homes = configuration.postgres.map { _ in
        PhoneHomes(store: phoneStore, url: { instanceURL.get() }, now: configuration.now, forget: { await platform.release($0) })
    }
    let forwarding = homes.map { PhoneForwarding(homes: $0, logger: logger) }
    try await forwarding?.homes.beatOnce()
    let doors = Doors(
        listenHost: listenHost, publicURL: configuration.publicURL, instanceURL: configuration.instanceURL, accessKey: accessKey,
        pushToken: configuration.pushToken,
        isIssuedAccessToken: { push.standing(ofAccessToken: $0).isLive })
    monitor.watch(backend: backend, faults: faults)
    monitor.watch(
        databases: [
            ("phones", phoneStore.postgresCounts), ("backend", backendStore.postgresCounts), ("push", pushStore.postgresCounts),
            ("timeline", timelineStore.postgresCounts), ("sms", smsStore.postgresCounts),
        ].compactMap { name, counts in counts.map { (name, $0) } })
    let templates = try await MustacheLibrary(directory: configuration.templatesDirectory)

    let router = Router(context: AppRequestContext.self)
    router.add(middleware: ObservingMiddleware(monitor: monitor))
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: ErrorMappingMiddleware())
    router.add(middleware: DoorMiddleware(doors: doors))
    router.add(
        middleware: FileMiddleware(configuration.publicDirectory, searchForIndexHtml: false, logger: logger)
            .withAdditionalMediaType(MediaType(type: .application, subType: "yaml"), mappedToFileExtension: "yaml")
            .withAdditionalMediaType(MediaType(type: .application, subType: "manifest+json"), mappedToFileExtension: "webmanifest"))
    router.add(middleware: RequestGuardMiddleware())
    if let forwarding { router.add(middleware: PhoneForwardingMiddleware(forwarding: forwarding)) }
    let scanner = QRImageScanner(lane: lanes.pictures, timeLimit: configuration.pictureScanTimeLimit)
    // what a walk's outcomes depend on, as `serve` takes it, for the replay's server
    var walkArguments = configuration.manualClock == nil ? [] : ["--clock", "manual"]
    if configuration.backend.sessionLifetime != DemoBackend.Configuration().sessionLifetime {
        walkArguments += ["--session-lifetime", "\(Int(configuration.backend.sessionLifetime))"]
    }
    let recordings = Recordings(
        manualClock: configuration.manualClock != nil, serve: walkArguments, shared: configuration.postgres != nil, backend: backend,
        phones: phones, now: configuration.now)
    router.addRoutes(
        PhonesController(phones: phones, platform: platform, scanner: scanner, recordings: recordings).endpoints, atPath: "/api/phones")
    router.addRoutes(PhoneActions(phones: phones, recordings: recordings).endpoints, atPath: "/api/phones")
    router.addRoutes(OTPAccountsController(phones: phones).endpoints, atPath: "/api/phones")
    router.addRoutes(PrivacyIDEAController(phones: phones).endpoints, atPath: "/api/phones")
    router.addRoutes(AutoAnswerController(phones: phones).endpoints, atPath: "/api/phones")
    router.addRoutes(PhoneLinkController(phones: phones, base: selfURL, key: accessKey, authority: tls?.authority).endpoints, atPath: "/api/phones")
    PushController(push: push, token: configuration.pushToken, monitor: monitor, recordings: recordings).addRoutes(to: router)
    router.addRoutes(PushConsoleController(push: push, phones: phones).endpoints, atPath: "/api/push")
    SenderCredentialsController(push: push, baseURL: { selfURL.get() }).addRoutes(to: router)
    let messages = MessagesController(phones: phones, gateway: sms, baseURL: { selfURL.get() })
    router.addRoutes(messages.phoneRoutes, atPath: "/api/phones")
    router.addRoutes(messages.gatewayRoutes, atPath: "/api/sms")
    SMSDoorsController(gateway: sms).addRoutes(to: router)
    router.addRoutes(BackendController(backend: backend, recordings: recordings).endpoints, atPath: RouterPath(BackendRoutes.root))
    router.addRoutes(FaultsController(faults: faults, recordings: recordings).endpoints, atPath: "/api/faults")
    router.addRoutes(
        ClockController(clock: configuration.manualClock, now: configuration.now, recordings: recordings).endpoints, atPath: "/api/clock")
    router.addRoutes(RecordingsController(recordings: recordings).endpoints, atPath: "/api/recordings")
    let events = EventFeed(
        hub: EventHub(history: configuration.eventHistory, maxStreams: configuration.eventStreams), phones: phones, backend: backend, push: push)
    router.addRoutes(
        EventsController(feed: events, monitor: monitor, forwarding: forwarding, keepAlive: configuration.eventKeepAlive).endpoints,
        atPath: "/api/events")
    router.addRoutes(CertificateController(authority: tls?.authority).endpoints, atPath: "/tls")
    ResetController(
        phones: phones, backend: backend, push: push, sms: sms, faults: faults, timeline: timeline, monitor: monitor, recordings: recordings
    )
    .addRoutes(to: router)
    let timelineRoutes = TimelineController(timeline: timeline, backend: backend, phones: phones)
    timelineRoutes.addRoutes(to: router)
    router.addRoutes(try PagesController(templates: templates, phones: phones, backend: backend).endpoints)
    HealthController(
        databases: [
            ("phones", { await phoneStore.state() }), ("backend", { await backendStore.state() }), ("push", { await pushStore.state() }),
            ("timeline", { await timelineStore.state() }), ("sms", { await smsStore.state() }),
        ],
        monitor: monitor, faults: faults, startedAt: startedAt, now: configuration.now
    ).addRoutes(to: router)

    let webSocketRouter = Router(context: AppRequestContext.self)
    webSocketRouter.add(middleware: ErrorMappingMiddleware())
    webSocketRouter.add(middleware: DoorMiddleware(doors: doors))
    StreamController(
        phones: phones, backend: backend, push: push, faults: faults, monitor: monitor, forwarding: forwarding, recordings: recordings
    )
    .addRoutes(to: webSocketRouter)
    timelineRoutes.addStream(to: webSocketRouter)

    var services: [any Service] = [
        PushOpener(platform: platform, forwarding: forwarding, logger: logger), DeferredPushSender(backend: backend), lanes, events,
        RetryWhenFaultsLift(faults: faults, phones: phones),
    ]
    if let forwarding {
        services.append(OtherInstances(push: push, phones: phones, backend: backend, timeline: timeline))
        services.append(PhoneHomesBeat(homes: forwarding.homes, logger: logger))
    }
    if configuration.recordTimeline { services.append(TimelineRecorder(timeline: timeline, push: push)) }
    if let wireClient { services.append(HTTPClientShutdown(client: wireClient)) }
    let sslContext = try tls.map { try NIOSSLContext(configuration: $0.serverConfiguration) }

    let webSocketResponder = webSocketRouter.buildResponder()
    return Application(
        router: router,
        server: HTTPServerBuilder { responder in
            let http = DoorGuardedChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(
                        http1: .init(idleTimeout: TimeAmount(configuration.idleTimeout)),
                        ws: .init(maxFrameSize: StreamController.maxMessageSize, validateUTF8: true))),
                doors: doors, firstRequestTimeout: TimeAmount(configuration.idleTimeout))
            guard let sslContext else { return http }
            return TLSSniffingChannel(inner: http, context: sslContext, doors: doors)
        },
        configuration: .init(address: .hostname(listenHost, port: configuration.port), serverName: "AuthPhone"),
        services: services,
        onServerRunning: { channel in
            if let port = channel.localAddress?.port {
                selfURL.listening(on: port)
                instanceURL.listening(on: port)
            }
            logger.info("AuthPhone is listening on \(selfURL.get())")
            if let accessKey, configuration.accessKey == nil {
                logger.notice("Off loopback every route needs the access key: open \(selfURL.get())/?\(Doors.keyParameter)=\(accessKey)")
            }
        },
        logger: logger)
}
