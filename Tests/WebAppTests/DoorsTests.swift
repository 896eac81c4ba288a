import Backend
import BackendAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Phone
import Testing

@testable import WebApp

/// Who gets in: the server's own names only (DNS rebinding), its own pages' Origin, and off
/// loopback the access key, on every kind of route. A door that fails to close a connection
/// would hang a raw exchange: the time limit makes that a failure.
@Suite(.timeLimit(.minutes(1))) struct DoorsTests {
    let loopback = Doors(listenHost: "127.0.0.1", publicURL: "http://AuthPhone.example:9000", accessKey: nil)

    func admit(
        _ doors: Doors, _ method: HTTPRequest.Method = .get, path: String = "/api/phones", host: String?,
        _ headers: HTTPFields = [:], query: String? = nil
    ) -> String? {
        doors.admit(method: method, path: path, authority: host, headers: headers, query: query)?.code
    }

    @Test func onlyTheServersOwnNamesAreAnswered() {
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "authphone.example:9000", "authphone.example"] {
            #expect(admit(loopback, host: host) == nil, "\(host)")
        }
        for host in [
            "attacker.example", "attacker.example:8080", "127.0.0.1.attacker.example", "localhost.attacker.example",
            "authphone.example.attacker.example", "0.0.0.0:8080", "[::2]:8080",
        ] {
            #expect(admit(loopback, host: host) == "UNKNOWN_HOST", "\(host)")
        }
        #expect(admit(loopback, host: nil) == "HOST_MISSING")
        #expect(admit(loopback, host: "") == "HOST_MISSING")
        // a wildcard listen address is no name
        #expect(
            admit(Doors(listenHost: "0.0.0.0", publicURL: nil, accessKey: "k"), host: "0.0.0.0", [.authorization: "Bearer k"])
                == "UNKNOWN_HOST")
        #expect(
            admit(Doors(listenHost: "192.0.2.7", publicURL: nil, accessKey: "k"), host: "192.0.2.7:80", [.authorization: "Bearer k"])
                == nil)
    }

    @Test func stateChangesAndUpgradesComeOnlyFromTheServersOwnPages() {
        let foreign: HTTPFields = [.origin: "http://attacker.example"]
        #expect(admit(loopback, .post, host: "127.0.0.1:8080", foreign) == "FORBIDDEN_ORIGIN")
        #expect(admit(loopback, .delete, host: "127.0.0.1:8080", foreign) == "FORBIDDEN_ORIGIN")
        #expect(
            admit(loopback, .get, host: "127.0.0.1:8080", [.origin: "http://attacker.example", .upgrade: "websocket"])
                == "FORBIDDEN_ORIGIN")
        // another port of the same host is another origin
        #expect(admit(loopback, .post, host: "127.0.0.1:8080", [.origin: "http://127.0.0.1:9999"]) == "FORBIDDEN_ORIGIN")
        #expect(admit(loopback, .post, host: "127.0.0.1:8080", [.origin: "http://127.0.0.1:8080"]) == nil)
        #expect(admit(loopback, .get, host: "127.0.0.1:8080", [.origin: "ws://127.0.0.1", .upgrade: "websocket"]) == nil)
        #expect(admit(loopback, .post, host: "127.0.0.1:8080") == nil)  // scripts send no Origin
    }

    /// An open event stream holds one of a few places: no page of another site may take one.
    @Test func theEventStreamOpensOnlyForTheServersOwnPagesAndScripts() {
        let host = "127.0.0.1:8080"
        #expect(admit(loopback, path: "/api/events", host: host, [.origin: "http://attacker.example"]) == "FORBIDDEN_ORIGIN")
        #expect(admit(loopback, path: "/api/events", host: host, [.secFetchSite: "cross-site"]) == "FORBIDDEN_ORIGIN")
        #expect(admit(loopback, path: "/api/events", host: host, [.origin: "http://127.0.0.1:8080", .secFetchSite: "same-origin"]) == nil)
        #expect(admit(loopback, path: "/api/events", host: host) == nil)
        // other reads stay open to any page, as before
        #expect(admit(loopback, path: "/api/phones", host: host, [.origin: "http://attacker.example"]) == nil)
    }

    @Test func offLoopbackEveryRouteNeedsTheKey() {
        let doors = Doors(
            listenHost: "0.0.0.0", publicURL: "http://box.example:8080", accessKey: "the-key-0123456789",
            pushToken: "push-token-0123456789")
        let host = "box.example:8080"
        for path in ["/", "/console", "/api/phones", "/js/phone.js", "/api/phones/x/stream", "/v1/projects/p/messages:send"] {
            #expect(admit(doors, path: path, host: host) == "ACCESS_KEY_REQUIRED", "\(path)")
            #expect(admit(doors, path: path, host: host, [.authorization: "Bearer wrong-key-0123456789"]) == "ACCESS_KEY_REQUIRED")
            #expect(admit(doors, path: path, host: host, [.authorization: "Bearer the-key-0123456789"]) == nil)
            #expect(admit(doors, path: path, host: host, [.cookie: "a=b; authphone_key=the-key-0123456789"]) == nil)
            #expect(admit(doors, path: path, host: host, query: "key=the-key-0123456789") == nil)
        }
        // the orchestrator's probes read without it, and only read
        for path in Doors.probeRoutes {
            #expect(admit(doors, path: path, host: host) == nil, "\(path)")
            #expect(admit(doors, .post, path: path, host: host) == "ACCESS_KEY_REQUIRED", "\(path)")
            #expect(admit(doors, path: path, host: "attacker.example") == "UNKNOWN_HOST", "\(path)")
        }
        #expect(admit(doors, path: "/metrics", host: host) == "ACCESS_KEY_REQUIRED")
        // the push token opens the FCM route only
        #expect(admit(doors, .post, path: "/v1/projects/p/messages:send", host: host, [.authorization: "Bearer push-token-0123456789"]) == nil)
        #expect(admit(doors, path: "/api/phones", host: host, [.authorization: "Bearer push-token-0123456789"]) == "ACCESS_KEY_REQUIRED")
        #expect(Doors.isLoopback("127.0.0.1") && Doors.isLoopback("::1") && Doors.isLoopback("localhost"))
        #expect(!Doors.isLoopback("0.0.0.0") && !Doors.isLoopback("192.0.2.7"))
    }

    /// A page on a rebinding domain reaches this address with its own name in `Host`: pages,
    /// files, the API and the WebSocket all refuse it, with a body that says why.
    @Test func aRebindingDomainGetsNothingOnAnyRoute() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let phone = try await client.createPhone()
            let port = try #require(client.port)
            for path in ["/", "/console", "/phones/\(phone.id)", "/js/phone.js", "/api/phones", "/api/backend/server-flags"] {
                let answer = try await RawHTTP.exchange(
                    port: port, "GET \(path) HTTP/1.1\r\nHost: attacker.example:\(port)\r\nConnection: close\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 421"), "\(path): \(answer.prefix(40))")
                #expect(answer.contains("UNKNOWN_HOST"))
            }
            let raise = try await RawHTTP.exchange(
                port: port,
                """
                PUT /api/backend/second-factor-policy HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\
                Content-Type: application/json\r\n\
                Content-Length: 19\r\n\r\n{"maxAttempts":100}
                """)
            #expect(raise.hasPrefix("HTTP/1.1 421"))
            let policy = try JSONSerialization.jsonObject(with: try await client.send(.get, "/api/backend/second-factor-policy").body)
            #expect((policy as? [String: Any])?["maxAttempts"] as? Int == 3)
            let stream = "/api/phones/\(phone.id)/stream"
            let rebound = try await RawHTTP.exchange(port: port, RawHTTP.webSocketHandshake(stream, host: "attacker.example"))
            #expect(rebound.hasPrefix("HTTP/1.1 421"))
            #expect(rebound.contains("UNKNOWN_HOST"))
            let foreign = try await RawHTTP.exchange(
                port: port, RawHTTP.webSocketHandshake(stream, host: "127.0.0.1:\(port)", headers: "Origin: http://attacker.example\r\n"))
            #expect(foreign.hasPrefix("HTTP/1.1 403"))
            #expect(foreign.contains("\"FORBIDDEN_ORIGIN\""))
            let own = try await RawHTTP.exchange(
                port: port, RawHTTP.webSocketHandshake(stream, host: "127.0.0.1:\(port)", headers: "Origin: http://127.0.0.1:\(port)\r\n"),
                until: "\r\n\r\n")
            #expect(own.hasPrefix("HTTP/1.1 101"))
        }
    }

    @Test func pagesAndAnswersCarryTheSecurityHeaders() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.router) { client in
            for path in ["/", "/console", "/js/phone.js", "/api/phones", "/api/phones/nobody"] {
                try await client.execute(uri: path, method: .get) { response in
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("script-src 'self';") && !policy.contains("unsafe-inline"), "\(path)")
                    // only this server's own pages frame its pages (the stage), never another site
                    #expect(policy.contains("frame-ancestors 'self'"))
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "SAMEORIGIN")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                }
            }
        }
    }

    /// Off loopback: no key, 401 everywhere; the key link sets an HttpOnly, SameSite=Strict
    /// cookie and leaves the address bar; the phones' own requests to their backend carry it.
    @Test func theAccessKeyGuardsEveryRouteAndThePartsUseIt() async throws {
        var configuration = testConfiguration()
        configuration.host = "127.0.0.1"
        configuration.accessKey = "test-access-key-0123456789"
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let bearer: HTTPFields = [.contentType: "application/json", .authorization: "Bearer test-access-key-0123456789"]
            #expect(try await client.send(.get, "/api/phones").status == .unauthorized)
            #expect(try await client.send(.get, "/api/phones").errorCode == "ACCESS_KEY_REQUIRED")
            #expect(try await client.send(.get, "/").status == .unauthorized)
            try await client.execute(uri: "/console?key=test-access-key-0123456789", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/console")
                let cookie = response.headers[.setCookie] ?? ""
                #expect(cookie.hasPrefix("authphone_key=test-access-key-0123456789;"))
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            }
            try await client.execute(uri: "/console", method: .get, headers: [.cookie: "authphone_key=test-access-key-0123456789"]) {
                #expect($0.status == .ok)
            }
            // an enrolment goes phone → backend over HTTP through the same doors
            let phone = try await client.send(.post, "/api/phones", json: ["name": "keyed"], headers: bearer).decode(PhoneSummary.self)
            let session = try await client.send(.post, "/api/backend/sessions", json: ["type": "enrol", "userId": "alice"], headers: bearer)
                .decode(BackendSession.self)
            let started = try await client.send(.post, "/api/phones/\(phone.id)/oob", json: ["qr": session.qrText], headers: bearer)
            #expect(started.status == .accepted)
            #expect(
                try await client.send(.get, "/api/backend/sessions/\(session.id)", headers: bearer).decode(BackendSession.self).status
                    == .redeemed)
        }
    }

    /// A connection that sends half a request and then nothing is closed after the idle time.
    @Test func aHalfSentRequestIsClosed() async throws {
        var configuration = testConfiguration()
        configuration.idleTimeout = .milliseconds(300)
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let started = ContinuousClock.now
            let answer: String
            do { answer = try await RawHTTP.exchange(port: port, "GET /api/phones HTTP/1.1\r\nHost: 127.0.0.1\r\n") } catch ChannelError
                .ioOnClosedChannel
            {
                // on a loaded machine the idle time can pass before the half request is even written: closed all the same
                answer = ""
            } catch let error as IOError where error.errnoCode == ECONNRESET {
                // or the close comes as a reset while the half request is still unread: closed all the same
                answer = ""
            }
            #expect(answer.isEmpty)
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }
}

/// Bytes over a plain TCP connection, so a test can send what no HTTP client would (a foreign
/// Host, half a request, an unmasked frame) and read the answer until the server closes it (or
/// `until` appears).
enum RawHTTP {
    static func exchange(port: Int, _ request: String, until marker: String? = nil) async throws -> String {
        String(decoding: try await exchange(port: port, Array(request.utf8), until: marker.map { Array($0.utf8) }), as: UTF8.self)
    }

    static func exchange(port: Int, _ request: [UInt8], until marker: [UInt8]? = nil) async throws -> [UInt8] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: request))
            var received: [UInt8] = []
            for try await chunk in inbound {
                received += chunk.readableBytesView
                if let marker, received.firstRange(of: marker) != nil { break }
            }
            return received
        }
    }

    /// A WebSocket handshake for `path` naming `host`, with `headers` (whole lines) added.
    static func webSocketHandshake(_ path: String, host: String, headers: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(headers)\r\n"
    }
}
