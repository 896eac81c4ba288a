import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Phone
import Testing

@testable import WebApp

/// The doors read what they are sent to the byte: one `Host`, the `Bearer` scheme in any case
/// (RFC 7235), the link's `?key=` on a WebSocket too, and only masked frames from a WebSocket's
/// client (RFC 6455 §5.1).
extension DoorsTests {
    static let key = "test-access-key-0123456789"

    /// A proxy may read the first `Host` and this server another: two are refused, on a route
    /// and on a WebSocket's handshake, with the error body.
    @Test func aRequestThatNamesItsHostTwiceIsRefused() async throws {
        #expect(admit(loopback, host: "127.0.0.1:8080", [.host: "attacker.example"]) == "HOST_REPEATED")
        #expect(admit(loopback, host: "127.0.0.1:8080", [.host: "127.0.0.1:8080"]) == "HOST_REPEATED")
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let route = "GET /api/phones HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nHost: attacker.example\r\nConnection: close\r\n\r\n"
            // an unknown phone's screen: let through, the handshake would end in an empty 400
            let handshake = RawHTTP.webSocketHandshake("/api/phones/nobody/stream", host: "127.0.0.1:\(port)", headers: "Host: attacker.example\r\n")
            for request in [route, handshake] {
                let answer = try await RawHTTP.exchange(port: port, request)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(40))")
                #expect(answer.contains("\"HOST_REPEATED\""))
            }
        }
    }

    @Test func theBearerSchemeIsReadInAnyCase() {
        let doors = Doors(listenHost: "0.0.0.0", publicURL: nil, accessKey: Self.key)
        for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
            #expect(admit(doors, host: "127.0.0.1", [.authorization: "\(scheme) \(Self.key)"]) == nil, "\(scheme)")
        }
        #expect(Doors.bearerToken(in: "Bearer   \(Self.key)") == Self.key)
        for refused in ["Basic \(Self.key)", "Bearer\(Self.key)", "Bearer", "Bearer ", Self.key, "Bearer \(Self.key)x"] {
            #expect(admit(doors, host: "127.0.0.1", [.authorization: refused]) == "ACCESS_KEY_REQUIRED", "\(refused)")
        }
    }

    /// A WebSocket cannot keep a cookie the way a page does, nor follow the page's redirect: the
    /// key link's `?key=` lets it in; a wrong one is refused with the error body.
    @Test func aWebSocketOpenedWithTheKeyLinksKeyIsLetIn() async throws {
        var configuration = testConfiguration()
        configuration.accessKey = Self.key
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let phone = try await client.send(
                .post, "/api/phones", json: ["name": "keyed"], headers: [.contentType: "application/json", .authorization: "Bearer \(Self.key)"]
            ).decode(PhoneSummary.self)
            for path in ["/api/phones/\(phone.id)/stream", "/api/backend/stream"] {
                let answer = try await RawHTTP.exchange(
                    port: port, RawHTTP.webSocketHandshake("\(path)?key=\(Self.key)", host: "127.0.0.1:\(port)"), until: "\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 101"), "\(path): \(answer.prefix(40))")
            }
            let wrong = try await RawHTTP.exchange(
                port: port, RawHTTP.webSocketHandshake("/api/backend/stream?key=wrong-key-0123456789", host: "127.0.0.1:\(port)"))
            #expect(wrong.hasPrefix("HTTP/1.1 401"))
            #expect(wrong.contains("\"ACCESS_KEY_REQUIRED\""))
        }
    }

    /// An unmasked frame, sent with the handshake itself (the hardest case: it arrives while the
    /// connection upgrades), is answered with close 1002 and the connection ends. The masked
    /// close that follows it would otherwise end the exchange with 1000.
    @Test func anUnmaskedFrameFromTheClientClosesTheWebSocketWith1002() async throws {
        let app = try await buildApplication(testConfiguration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let handshake = RawHTTP.webSocketHandshake("/api/backend/stream", host: "127.0.0.1:\(port)")
            let unmaskedText: [UInt8] = [0x81, 0x02] + Array("hi".utf8)
            let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            let maskedClose: [UInt8] = [0x88, 0x82] + mask + zip([0x03, 0xE8], mask).map { $0 ^ $1 }
            func closing(_ frames: [UInt8]) async throws -> (code: UInt16, reason: String)? {
                let answer = try await RawHTTP.exchange(port: port, Array(handshake.utf8) + frames)
                #expect(answer.starts(with: Array("HTTP/1.1 101".utf8)))
                let header = try #require(answer.firstRange(of: Array("\r\n\r\n".utf8)))
                return WebSocketBytes.closeFrame(in: Array(answer[header.upperBound...]))
            }
            // masked, the close ends the exchange as usual
            #expect(try await closing(maskedClose)?.code == 1000)
            let refused = try await closing(unmaskedText + maskedClose)
            #expect(refused?.code == 1002)
            #expect(refused?.reason == WebSocketMaskCheck.reason)
        }
    }
}

/// A server's frames as bytes (server frames carry no mask).
enum WebSocketBytes {
    /// The first close frame's code and reason among `bytes`, or nil when none is there.
    static func closeFrame(in bytes: [UInt8]) -> (code: UInt16, reason: String)? {
        var index = 0
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            index += 2
            let extra = length == 126 ? 2 : length == 127 ? 8 : 0
            guard index + extra <= bytes.count else { return nil }
            if extra > 0 { length = bytes[index..<index + extra].reduce(0) { $0 << 8 | Int($1) } }
            index += extra
            guard index + length <= bytes.count else { return nil }
            if opcode == 0x8, length >= 2 {
                let code = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                return (code, String(decoding: bytes[index + 2..<index + length], as: UTF8.self))
            }
            index += length
        }
        return nil
    }
}
