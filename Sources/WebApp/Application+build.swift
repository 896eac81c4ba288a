import Backend
import Faults
import Foundation
import GRDB
import Hummingbird
import HummingbirdWebSocket
import Logging
import Mustache
import NIOCore
import Phone
import PushService
import SodiumKit

/// Builds AuthPhone: the demo backend, the simulated phones and the pages, on one server.
/// `authphone serve` and the tests both call this.
public func buildApplication(_ configuration: AppConfiguration, logger: Logger = Logger(label: "authphone"))
    async throws -> some ApplicationProtocol {
    let selfURL = ServerURL("http://\(configuration.host):\(configuration.port)")
    let (phoneDatabase, backendDatabase, pushDatabase) = try openDatabases(configuration)
    let faults = FaultInjector(now: configuration.now, random: configuration.random)
    let backend = try DemoBackend(database: backendDatabase, configuration: configuration.backend,
                                  baseURL: { selfURL.get() }, now: configuration.now, sleep: configuration.sleep, faults: faults)
    let backendURL = configuration.backendURL
    let phones = PhoneService(
        database: phoneDatabase,
        configuration: .init(allowedBackends: { [backendURL ?? selfURL.get()] },
                             pinDerivation: PinKeyDerivation(profile: configuration.pinDerivation),
                             sleep: configuration.sleep, random: configuration.random),
        now: configuration.now, faults: faults)
    let push = try PushService(writer: pushDatabase, configuration: configuration.push, now: configuration.now,
                               faults: faults, sleep: configuration.sleep)
    try await push.register(tokens: phones.phones().map(\.fcmToken))
    let templates = try await MustacheLibrary(directory: configuration.templatesDirectory)

    let router = Router(context: AppRequestContext.self)
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: ErrorMappingMiddleware())
    router.add(middleware: FileMiddleware(configuration.publicDirectory, searchForIndexHtml: false, logger: logger)
        .withAdditionalMediaType(MediaType(type: .application, subType: "yaml"), mappedToFileExtension: "yaml"))
    router.add(middleware: RequestGuardMiddleware())
    let scanner = QRImageScanner(timeLimit: configuration.pictureScanTimeLimit)
    router.addRoutes(PhonesController(phones: phones, push: push, scanner: scanner).endpoints, atPath: "/api/phones")
    PushController(push: push).addRoutes(to: router)
    router.addRoutes(BackendController(backend: backend).endpoints, atPath: "/api/backend")
    router.addRoutes(FaultsController(faults: faults).endpoints, atPath: "/api/faults")
    router.addRoutes(try PagesController(templates: templates, phones: phones).endpoints)
    router.get("/health") { _, _ in "ok" }

    let webSocketRouter = Router(context: AppRequestContext.self)
    webSocketRouter.add(middleware: ErrorMappingMiddleware())
    StreamController(phones: phones, backend: backend, push: push, faults: faults).addRoutes(to: webSocketRouter)

    return Application(
        router: router,
        server: .http1WebSocketUpgrade(
            webSocketRouter: webSocketRouter,
            configuration: .init(ws: .init(maxFrameSize: StreamController.maxMessageSize, validateUTF8: true))),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "AuthPhone"),
        services: [PushOpener(phones: phones, push: push, logger: logger)],
        onServerRunning: { channel in
            if let port = channel.localAddress?.port { selfURL.set("http://\(configuration.host):\(port)") }
            logger.info("AuthPhone is listening on \(selfURL.get())")
        },
        logger: logger)
}

/// One SQLite file per part, as if they ran on three machines.
private func openDatabases(_ configuration: AppConfiguration) throws -> (PhoneDatabase, BackendDatabase, any DatabaseWriter) {
    guard let directory = configuration.dataDirectory else { return (try .inMemory(), try .inMemory(), try DatabaseQueue()) }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return (try .open(path: directory + "/phones.sqlite"), try .open(path: directory + "/backend.sqlite"),
            try DatabasePool(path: directory + "/push.sqlite"))
}
