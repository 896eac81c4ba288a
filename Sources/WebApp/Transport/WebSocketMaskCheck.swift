import NIOCore
import NIOHTTP1
import NIOWebSocket

/// RFC 6455 §5.1: a client masks every frame it sends, and a server that receives one unmasked
/// closes the connection with 1002 (protocol error). NIO's frame decoder takes either and
/// swift-websocket has no option to refuse them, so this check sits right after the decoder.
final class WebSocketMaskCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    static let reason = "client frames must be masked (RFC 6455 section 5.1)"
    private var closing = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        guard unwrapInboundIn(data).maskKey == nil else { return context.fireChannelRead(data) }
        closing = true
        var body = context.channel.allocator.buffer(capacity: 2 + Self.reason.utf8.count)
        body.write(webSocketErrorCode: .protocolError)
        body.writeString(Self.reason)
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: body)
        context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in context.close(promise: nil) }
    }
}

/// Puts a `WebSocketMaskCheck` into a connection that upgrades. Added at the end of the
/// pipeline before the handshake goes on, it hears the upgrade complete once the WebSocket's
/// decoder is in place and before any frame reaches it (NIO replays the bytes that came with
/// the handshake only after this event); a connection that does not upgrade loses it at its
/// first read.
final class WebSocketUpgradeWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        guard case .upgradeComplete = event as? HTTPServerUpgradeEvents else { return }
        let pipeline = context.pipeline.syncOperations
        do {
            let decoder = try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try pipeline.addHandler(WebSocketMaskCheck(), position: .after(decoder))
        } catch {
            // a WebSocket that cannot be checked is not kept open
            context.close(promise: nil)
        }
        pipeline.removeHandler(context: context, promise: nil)
    }
}
