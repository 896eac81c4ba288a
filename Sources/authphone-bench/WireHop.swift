import BackendAPI
import Foundation
import Hummingbird
import Logging
import ProcessFigures

/// The floor under a login's cost: one exchange between two parts of this process as the wire
/// makes it (AsyncHTTPClient, keep-alive, to a Hummingbird route that answers the body it was
/// sent), with nothing of AuthPhone's own on either side. A login makes four such exchanges
/// inside the server, and the load generator's requests and WebSocket messages come on top.
/// Answers the exchanges a second and the process's CPU per exchange, `inFlight` at a time: one
/// at a time every exchange wakes the threads on its way; under load, as in a login run, many
/// share each wake-up.
func wireHops(_ count: Int, inFlight: Int) async throws -> (perSecond: Double, cpuMicroseconds: Double) {
    let router = Router()
    router.post("/echo") { request, _ -> ByteBuffer in try await request.body.collect(upTo: 1 << 16) }
    let (listening, listen) = AsyncStream<Int>.makeStream()
    // quiet: the server is stopped by cancelling it, which it would log as an error
    var logger = Logger(label: "authphone.bench.echo")
    logger.logLevel = .critical
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in listen.yield(channel.localAddress?.port ?? 0) }, logger: logger)
    let server = Task { try await app.runService() }
    defer { server.cancel() }
    var port = 0
    for await found in listening {
        port = found
        break
    }
    let url = "http://127.0.0.1:\(port)/echo"
    // a redeem request's size
    let body = Data(
        #"{"token":"\#(String(repeating: "t", count: 43))","deviceId":"\#(UUID().uuidString)","devicePublicKey":"\#(String(repeating: "k", count: 43))","deviceSignature":"\#(String(repeating: "s", count: 86))"}"#
            .utf8)
    let wire = WireHTTPClient()
    _ = try await wire.post(url, bytes: body)  // the connection, made once
    let clock = ContinuousClock()
    let cpuBefore = ProcessFigures.current?.cpuSeconds ?? 0
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<inFlight {
            group.addTask {
                for _ in 0..<count / inFlight {
                    let answer = try await wire.post(url, bytes: body)
                    precondition(answer.isSuccess)
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = (clock.now - start).seconds
    let cpu = (ProcessFigures.current?.cpuSeconds ?? 0) - cpuBefore
    let made = count / inFlight * inFlight
    return (Double(made) / elapsed, cpu / Double(made) * 1e6)
}
