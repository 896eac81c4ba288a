import BackendAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import WireJSON

/// The doors for what the routers cannot answer themselves: a refused WebSocket handshake would
/// otherwise be an empty 400, so this answers it with the usual error body; and a first request
/// that never finishes its head is closed after `timeout` (the HTTP channel's idle timeout only
/// starts once a head is read). It sits right after the HTTP decoder and leaves the pipeline
/// once the first head has passed; a handshake it lets through gets `WebSocketUpgradeWatcher`,
/// so that the WebSocket refuses unmasked frames.
final class UpgradeDoorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let doors: Doors
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(doors: Doors, timeout: TimeAmount) {
        self.doors = doors
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startDeadline(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startDeadline(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    private func startDeadline(_ context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        deadline?.cancel()
        deadline = nil
        if head.headers.contains(name: "upgrade") {
            if let refusal = refusal(head) { return refuse(context, refusal) }
            do { try context.pipeline.syncOperations.addHandler(WebSocketUpgradeWatcher()) } catch { return context.close(promise: nil) }
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func refusal(_ head: HTTPRequestHead) -> Doors.Refusal? {
        // as Hummingbird's requests have it: the first Host is the authority, any other a field
        var authority: String?
        var fields = HTTPFields()
        for (name, value) in head.headers {
            if authority == nil, name.lowercased() == "host" {
                authority = value
            } else if let field = HTTPField.Name(name) {
                fields.append(HTTPField(name: field, value: value))
            }
        }
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return doors.admit(
            method: HTTPRequest.Method(head.method.rawValue) ?? .get, path: String(parts.first ?? ""),
            authority: authority, headers: fields, query: parts.count > 1 ? String(parts[1]) : nil)
    }

    private func refuse(_ context: ChannelHandlerContext, _ refusal: Doors.Refusal) {
        let body = ByteBuffer(bytes: (try? WireJSON.bytes(refusal.apiError.body)) ?? [])
        let headers = HTTPHeaders([
            ("Content-Type", "application/json; charset=utf-8"), ("Content-Length", "\(body.readableBytes)"),
            ("Connection", "close"),
        ])
        let status = HTTPResponseStatus(statusCode: refusal.status.code)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

/// The HTTP/1.1 server with WebSocket upgrades, with `UpgradeDoorHandler` in each connection.
struct DoorGuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    let doors: Doors
    let firstRequestTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(
                UpgradeDoorHandler(doors: doors, timeout: firstRequestTimeout),
                position: .after(decoder))
            return value
        }
    }

    func handle(value: Inner.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
