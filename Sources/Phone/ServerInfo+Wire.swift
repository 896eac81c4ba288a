import AuthFlow
import BackendAPI

extension ServerInfo {
    /// The backend as the flow shows it: what the session named, and its visual hash.
    init(_ server: WireServer) {
        self.init(
            name: server.name, url: server.url, publicKey: server.publicKey,
            visualHash: .of(name: server.name, url: server.url, publicKey: server.publicKey))
    }
}
