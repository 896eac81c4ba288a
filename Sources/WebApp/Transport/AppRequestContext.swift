import BackendAPI
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import WireJSON

/// The request context of every route: small bodies only (the largest legitimate request is an
/// FCM message of a few KB).
struct AppRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<AppRequestContext>
    /// The peer's address, for the push log's "sender".
    let remoteAddress: SocketAddress?
    /// The request's connection, for a long answer to hear that its client went (`ClientDeparture`).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    var maxUploadSize: Int { 64 * 1024 }

    /// The same JSON dialect as the wire between phone and backend.
    var responseEncoder: WireResponseEncoder { WireResponseEncoder() }
}

/// A handler's answer as JSON, written by `WireJSON.bytes` (Foundation's encoder's bytes, faster),
/// with the headers Hummingbird's own JSON answers carry.
struct WireResponseEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        try Self.response(value)
    }

    /// Every JSON answer, a handler's or an error's, is made here.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let bytes = try WireJSON.bytes(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(bytes.count)],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
