import AsyncHTTPClient
import BackendAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWSClient
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import Phone
import ServiceLifecycle

/// Hands a phone's requests, and its screen's stream, to the instance its flow runs on
/// (`PhoneHomes`), so that behind a load balancer without sticky sessions every request for a
/// phone meets the one flow it drives. The answer comes back as the home gave it.
struct PhoneForwarding: Sendable {
    let homes: PhoneHomes
    let logger: Logger

    /// Marks a request handed over by another instance: its home serves it, whatever it finds.
    static let forwardedField = HTTPField.Name("AuthPhone-Forwarded-By")!
    /// The largest body handed over: a picture of a QR code, the largest a phone's route takes.
    static let maxBody = QRImageScanner.maximumImageSize
    /// Fields that describe one connection, not the request, and so are not handed on (RFC 9110 §7.6.1).
    static let connectionFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "content-length",
    ]

    /// The client requests to the other instances go through. An instance that does not answer
    /// is refused at once, not tried again until the request's deadline as a backend is: it
    /// may have died, and its phones are refused (`PHONE_HOME_UNREACHABLE`) until another
    /// takes them.
    static let instancesClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.idleTimeout = WireHTTPClient.idleTimeout
        configuration.timeout.connect = .seconds(2)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The phone a path is about: `/api/phones/{id}` and every path under it.
    static func phoneId(inPath path: Substring) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].isEmpty, parts[1] == "api", parts[2] == "phones", !parts[3].isEmpty else { return nil }
        return String(parts[3])
    }

    /// Where a request for `phoneId` is served: nil here, else the home's base URL.
    func elsewhere(_ phoneId: String, headers: HTTPFields) async throws(PhoneError) -> String? {
        guard headers[Self.forwardedField] == nil, case .elsewhere(_, let url) = try await homes.home(of: phoneId) else { return nil }
        return url
    }

    /// Where a stream about `phoneIds` is served: nil here (or when it names none), else their
    /// home's base URL. Phones at home on different instances have no one place where all their
    /// flows run, so they are refused together.
    func elsewhere(_ phoneIds: Set<String>, headers: HTTPFields) async throws -> String? {
        var homes = Set<String?>()
        for phoneId in phoneIds { homes.insert(try await elsewhere(phoneId, headers: headers)) }
        guard homes.count <= 1 else {
            throw APIError(
                .conflict, "PHONES_ON_SEVERAL_INSTANCES",
                "the phones named run their flows on different instances; open one stream for each phone")
        }
        return homes.first ?? nil
    }

    /// `request` sent to the home at `base`, and its answer. An answer that is a stream, which
    /// the home ends only when its client goes, is handed on until this instance stops or the
    /// client on `streamingTo` goes, as the home's own streams are.
    func forward(_ request: Request, to base: String, streamingTo client: (any Channel)? = nil) async throws -> Response {
        var outgoing = HTTPClientRequest(url: base + request.uri.string)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers where !Self.connectionFields.contains(field.name.canonicalName) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        outgoing.headers.add(name: Self.forwardedField.rawName, value: homes.instance)
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: Self.maxBody) } catch {
            throw APIError(.contentTooLarge, "BODY_TOO_LARGE", "the body is larger than \(Self.maxBody) bytes")
        }
        if body.readableBytes > 0 { outgoing.body = .bytes(body) }
        let answer: HTTPClientResponse
        do { answer = try await Self.instancesClient.execute(outgoing, timeout: .seconds(30)) } catch {
            throw Self.unreachable(base, error)
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers where !Self.connectionFields.contains(name.lowercased()) {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        guard let client else {
            return Response(status: .init(code: Int(answer.status.code)), headers: fields, body: ResponseBody(asyncSequence: answer.body))
        }
        return Response(
            status: .init(code: Int(answer.status.code)), headers: fields,
            body: ResponseBody { writer in
                // a client that falls behind is let go, as the home lets its own go (it resumes)
                let (chunks, handOn) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingOldest(EventsController.buffer))
                let reading = Task {
                    defer { handOn.finish() }
                    for try await chunk in answer.body {
                        if case .dropped = handOn.yield(chunk) { return }
                    }
                }
                defer { reading.cancel() }
                ClientDeparture.watch(client) { handOn.finish() }
                for await chunk in chunks.cancelOnGracefulShutdown() { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
    }

    /// The screen's stream joined to the home's: each side's messages carried to the other until
    /// either ends.
    func joinScreen(
        of phoneId: String, at base: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, headers: HTTPFields
    ) async throws {
        var handedOn = HTTPFields()
        for field in headers where [.authorization, .cookie].contains(field.name) { handedOn.append(field) }
        handedOn[Self.forwardedField] = homes.instance
        let url = base.replacingOccurrences(of: "http", with: "ws", options: .anchored) + "/api/phones/\(phoneId)/stream"
        do {
            try await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: StreamController.maxMessageSize, additionalHeaders: handedOn), logger: logger
            ) { homeInbound, homeOutbound, _ in
                // whichever side ends first ends both
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in homeInbound.messages(maxSize: StreamController.maxMessageSize) {
                            try await outbound.write(Self.frame(message))
                        }
                    }
                    group.addTask {
                        for try await message in inbound.messages(maxSize: StreamController.maxMessageSize) {
                            try await homeOutbound.write(Self.frame(message))
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch let error as WebSocketClientError {
            throw Self.unreachable(base, error)
        }
    }

    private static func frame(_ message: WebSocketMessage) -> WebSocketOutboundWriter.OutboundFrame {
        switch message {
        case .text(let text): .text(text)
        case .binary(let bytes): .binary(bytes)
        }
    }

    private static func unreachable(_ base: String, _ error: any Error) -> APIError {
        APIError(
            .serviceUnavailable, "PHONE_HOME_UNREACHABLE",
            "the instance this phone's flow runs on (\(base)) did not answer; another takes the phone once that instance is seen dead")
    }
}

/// Sends every request about a phone whose home is another instance there.
struct PhoneForwardingMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let forwarding: PhoneForwarding

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let phoneId = PhoneForwarding.phoneId(inPath: request.uri.path[...]),
            let home = try await forwarding.elsewhere(phoneId, headers: request.headers)
        else { return try await next(request, context) }
        return try await forwarding.forward(request, to: home)
    }
}
