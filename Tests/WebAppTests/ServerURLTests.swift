import Testing

@testable import WebApp

/// The URL QR codes, deep links and the key link carry: an IPv6 literal in brackets, a wildcard
/// as loopback of its family, and no URL at all stops the start (Tests/api/test_ipv6.py serves
/// on `::1` and `::` end to end).
@Suite struct ServerURLTests {
    @Test(arguments: [
        ("::1", "http://[::1]:8080"), ("::", "http://[::1]:8080"), ("2001:db8::7", "http://[2001:db8::7]:8080"),
        ("0.0.0.0", "http://127.0.0.1:8080"), ("", "http://127.0.0.1:8080"), ("192.0.2.7", "http://192.0.2.7:8080"),
        ("localhost", "http://localhost:8080"),
    ])
    func theListenAddressMakesTheURL(host: String, url: String) throws {
        let made = try ServerURL(publicURL: nil, listenHost: host, port: 8080)
        #expect(made.get() == url)
        made.listening(on: 40_123)
        #expect(made.get() == url.replacingOccurrences(of: ":8080", with: ":40123"))
    }

    @Test func aPublicURLStaysAsGiven() throws {
        let made = try ServerURL(publicURL: "http://[::1]:9000/", listenHost: "::", port: 8080)
        made.listening(on: 40_123)
        #expect(made.get() == "http://[::1]:9000")
    }

    /// A space makes no URL; a slash, an @ or a # make one naming another host or none.
    @Test(arguments: ["exa mple", "example/evil", "user@example", "example#x", "example?x"])
    func aListenAddressThatMakesNoURLStopsTheStart(host: String) async throws {
        #expect(throws: ServerURLError.self) { try ServerURL(publicURL: nil, listenHost: host, port: 8080) }
        var configuration = testConfiguration()
        configuration.host = host
        await #expect(throws: ServerURLError.self) { _ = try await buildApplication(configuration) }
    }
}
