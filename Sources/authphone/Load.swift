import ArgumentParser
import Foundation
import LoadGenerator

/// `authphone load`: many simulated users against a running AuthPhone, through its API and
/// WebSockets only, with figures at the end. It always stops by itself.
struct Load: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive a running AuthPhone with many phones and print logins/s, latency, errors, server RSS and CPU (read off its /metrics).",
        discussion: """
            logins: creates --phones phones, enrols each, then runs out-of-band logins (a backend
            session pushed through the FCM endpoint, opened at once, confirmed, the PIN) at --rate a
            second (0: every phone again at once) for --duration seconds or --count logins. Latency is
            end to end, from when a login was meant to start.
            sockets: holds --phones phone WebSockets open while --login-phones of them log in at
            --rate (default 10) a second; latency is from an input sent on a WebSocket to the
            FlowUpdate it causes.
            Run the server with --push-rate-limit high enough (each phone takes one push a login) and,
            for many logins a second, --pin-kdf fast.
            """)

    @Option(
        help:
            "Base URL of the running AuthPhone (only the given addresses are contacted); several instances sharing one PostgreSQL: one --url each, phone N on the Nth mod their count (default: http://127.0.0.1:8080)."
    )
    var url: [String] = []
    @Option(help: "logins or sockets.") var mode = "logins"
    @Option(help: "Phones to create.") var phones = 100
    @Option(help: "Logins started a second (0: as fast as possible).") var rate: Double = 0
    @Option(help: "Seconds to run.") var duration = 10
    @Option(help: "Stop after this many logins.") var count: Int?
    @Option(help: "Phones that log in during a sockets run.") var loginPhones = 10
    @Option(help: "Phones set up at once.") var setupConcurrency = 32
    @Option(help: "Seconds one login may take before it counts as TIMEOUT.") var timeout = 30
    @Option(help: "Write the figures as JSON to this file as well.") var json: String?
    @Flag(help: "No progress lines.") var quiet = false

    func run() async throws {
        guard let mode = LoadOptions.Mode(rawValue: mode) else { throw ValidationError("--mode must be logins or sockets") }
        var options = LoadOptions(urls: url.isEmpty ? ["http://127.0.0.1:8080"] : url)
        options.mode = mode
        options.phones = phones
        options.rate = rate
        options.duration = .seconds(duration)
        options.count = count
        options.loginPhones = loginPhones
        options.setupConcurrency = setupConcurrency
        options.timeout = .seconds(timeout)
        options.progress = !quiet
        let report: LoadReport
        do { report = try await LoadRun.run(options) } catch let failure as LoadFailure {
            throw ValidationError("\(failure.code): \(failure.detail)")
        }
        print(report.text)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
        if report.completed == 0 { throw ExitCode(1) }
    }
}
