import BackendAPI
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of every route: small bodies only (the largest legitimate request is an
/// FCM message of a few KB).
struct AppRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<AppRequestContext>
    /// The peer's address, for the push log's "sender".
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }

    var maxUploadSize: Int { 64 * 1024 }

    /// The same JSON dialect as the wire between phone and backend.
    var responseEncoder: JSONEncoder { WireJSON.encoder() }
}
