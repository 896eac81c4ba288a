import BackendAPI
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
