import NIOCore

/// Tells a long answer (an event stream) that its client has gone. The server keeps a
/// connection half open when its client closes its side (Hummingbird allows remote half
/// closure), and HTTP's own handler holds that news back until the answer ends, so a stream
/// whose client left would only find out when a write failed: a keep-alive or two later, its
/// place among the open streams held till then. This handler, put first on the connection,
/// hears it as it comes.
final class ClientDeparture: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    private let gone: @Sendable () -> Void

    private init(gone: @escaping @Sendable () -> Void) {
        self.gone = gone
    }

    /// Calls `gone` when the client closes its side of `channel`, and when the connection closes:
    /// what it does must bear being done twice.
    static func watch(_ channel: any Channel, _ gone: @escaping @Sendable () -> Void) {
        channel.closeFuture.whenComplete { _ in gone() }
        channel.pipeline.addHandler(ClientDeparture(gone: gone), position: .first).whenFailure { _ in gone() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { gone() }
        context.fireUserInboundEventTriggered(event)
    }
}
