import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import WireJSON

/// HTTPS and plain HTTP on one port, as a person types the address either way: the first byte
/// of a connection tells them apart (0x16 opens every TLS handshake, RFC 8446 §5.1, and no HTTP
/// method starts with it). A TLS connection gets the TLS handler in front of the HTTP server;
/// a plain one gets `PlainHTTPAnswer` and is closed.
struct TLSSniffingChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    let context: NIOSSLContext
    let doors: Doors

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(TLSSniffer(context: context, doors: doors), position: .first)
            return value
        }
    }

    func handle(value: Inner.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Reads a connection's first bytes, then installs TLS and leaves, or answers plain HTTP.
final class TLSSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let handshakeRecord: UInt8 = 0x16

    private let sslContext: NIOSSLContext
    private let doors: Doors
    /// A plain request's head so far, until it is whole.
    private var head = ByteBuffer()
    private var answered = false

    init(context: NIOSSLContext, doors: Doors) {
        self.sslContext = context
        self.doors = doors
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        var bytes = unwrapInboundIn(data)
        if head.readableBytes == 0, bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) == Self.handshakeRecord {
            do {
                try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext), position: .after(self))
            } catch {
                return context.close(promise: nil)
            }
            context.fireChannelRead(wrapInboundOut(bytes))
            context.fireChannelReadComplete()
            return context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        head.writeBuffer(&bytes)
        guard let answer = PlainHTTPAnswer(head: head.readableBytesView, doors: doors) else { return }
        answered = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer.text))).whenComplete { _ in context.close(promise: nil) }
    }
}

/// What the HTTPS port answers a plain HTTP request: a redirect to the same address and path
/// over HTTPS (307: a browser does not remember it, so the port may serve plain HTTP again
/// later), when the request names one of this server's hosts; else the refusal `Doors` gives.
/// Pure: the head's bytes in, the answer's out.
struct PlainHTTPAnswer: Equatable {
    let status: Int
    let reason: String
    let location: String?
    let body: [UInt8]

    /// More than this and still no end of the head: refused.
    static let headLimit = 8_192

    /// Nil while the head is not whole yet.
    init?(head bytes: some Collection<UInt8>, doors: Doors) {
        let text = String(decoding: bytes.prefix(Self.headLimit), as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else {
            guard bytes.count < Self.headLimit else {
                self.init(refusing: 431, code: "HEAD_TOO_LARGE", message: "the request's head is larger than 8 KiB")
                return
            }
            return nil
        }
        let lines: [Substring] = text[..<end.lowerBound].split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine: [Substring] = lines.first?.split(separator: " ") ?? []
        let target = requestLine.count == 3 ? String(requestLine[1]) : "/"
        let hostLine: Substring? = lines.dropFirst().first { $0.lowercased().hasPrefix("host:") }
        let authority: String? = hostLine.map { $0.dropFirst("host:".count).trimmingCharacters(in: .whitespaces) }
        guard let authority, !authority.isEmpty, authority.allSatisfy(Self.isAuthorityCharacter) else {
            self.init(refusing: 400, code: "HOST_MISSING", message: "the request names no host (HTTP/1.1 needs a Host header)")
            return
        }
        guard doors.hostNames.contains(Doors.hostName(of: authority)) else {
            self.init(refusing: 421, code: "UNKNOWN_HOST", message: "this server answers only to its own names")
            return
        }
        let path = target.hasPrefix("/") && target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) ? target : "/"
        self.init(status: 307, reason: "Temporary Redirect", location: "https://\(authority)\(path)", body: [])
    }

    private init(status: Int, reason: String, location: String?, body: [UInt8]) {
        (self.status, self.reason, self.location, self.body) = (status, reason, location, body)
    }

    private init(refusing status: Int, code: String, message: String) {
        let error = APIError(.init(code: status), code, "this port speaks HTTPS; \(message)")
        self.init(status: status, reason: error.status.reasonPhrase, location: nil, body: (try? WireJSON.bytes(error.body)) ?? [])
    }

    private static func isAuthorityCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || ".-:[]".contains(character))
    }

    /// The whole answer; the connection closes after it.
    var text: String {
        var lines = ["HTTP/1.1 \(status) \(reason)"]
        if let location { lines.append("Location: \(location)") }
        if !body.isEmpty { lines.append("Content-Type: application/json; charset=utf-8") }
        lines += ["Content-Length: \(body.count)", "Connection: close", "", ""]
        return lines.joined(separator: "\r\n") + String(decoding: body, as: UTF8.self)
    }
}
