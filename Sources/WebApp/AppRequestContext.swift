import BackendAPI
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The request context of every route: small bodies only (the largest legitimate request is an
/// FCM message of a few KB).
struct AppRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<AppRequestContext>

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
    }

    var maxUploadSize: Int { 64 * 1024 }

    /// The same JSON dialect as the wire between phone and backend.
    var responseEncoder: JSONEncoder { WireJSON.encoder() }
}
