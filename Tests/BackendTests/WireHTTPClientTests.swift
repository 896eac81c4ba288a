import BackendAPI
import Foundation
import Testing

@Suite struct WireHTTPClientTests {
    /// AsyncHTTPClient traps on a port past 65,535, which would stop the whole server: the wire
    /// refuses such an address with an error instead.
    @Test(arguments: ["http://127.0.0.1:70000/r", "http://127.0.0.1:186112345/r", "ftp://127.0.0.1/r", "http:///r", "not a url"])
    func anAddressItCannotSendToIsAnError(_ url: String) async {
        #expect(WireHTTPClient.sendableURL(url) == nil)
        await #expect(throws: WireHTTPClient.TransportError.self) { try await WireHTTPClient().post(url, json: ["a": "b"]) }
    }

    @Test(arguments: ["http://127.0.0.1:65535/r", "https://authphone.example/r", "HTTP://127.0.0.1:1"])
    func anHTTPAddressWithAPortInRangeIsSendable(_ url: String) {
        #expect(WireHTTPClient.sendableURL(url) != nil)
    }
}

@Suite struct RefusedConnectionTests {
    /// A port nothing listens on: bound, then closed again.
    static func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The other servers' wire does not try a refused connection again until the deadline (the
    /// phone's retry policy does, and shows it): the refusal comes back, in words.
    @Test func aRefusedConnectionIsSaidAtOnceInWords() async throws {
        let port = Self.closedPort()
        let wire = WireHTTPClient(http: WireHTTPClient.otherServers, timeout: .seconds(3))
        do {
            _ = try await wire.send("GET", "http://127.0.0.1:\(port)/ttype/push", contentType: nil)
            Issue.record("a closed port answered")
        } catch {
            #expect(!error.timedOut)
            #expect(error.description == "the connection to 127.0.0.1:\(port) was refused (nothing listens there)")
        }
    }
}
