import Foundation
import Histogram

/// What a load run measured, as text for a person and JSON for comparing runs.
public struct LoadReport: Codable, Sendable {
    public struct Latency: Codable, Sendable, Equatable {
        public var count: UInt64
        public var p50: Double
        public var p95: Double
        public var p99: Double
        public var max: Double
        public var mean: Double
    }

    public var mode: String
    public var urls: [String]
    public var phones: Int
    /// logins a second asked for (0: as fast as possible)
    public var targetRate: Double
    public var seconds: Double
    public var completed: Int
    public var perSecond: Double
    /// Logins' end-to-end latency (logins mode) or input → FlowUpdate (sockets mode), in ms.
    public var latencyMs: Latency
    public var errors: [String: Int]
    /// The first of each kind of error, word for word.
    public var errorExamples: [String: String]
    public var setupSeconds: Double
    public var setupFailures: [String: Int]
    public var server: ServerSample?
    /// The load generator's own CPU during the run.
    public var generator: CPUSample?
    /// CPU time a completed login cost during the run, in ms: the server's and the load
    /// generator's own, side by side, so that a figure says which of the two was the bottleneck.
    public var cpuMsPerLogin: CPUPerLogin
    /// PostgreSQL's transactions, statements and lost races a completed login cost, as the
    /// servers' driver counted them; nil on SQLite.
    public var databasePerLogin: DatabaseWork?
    public var cores: Int
    /// When the CPU figures were taken, the setup left out: for a script that measures another
    /// process over the same time (the bench, its PostgreSQL).
    public var measured: Window?

    /// A span of wall-clock time, in seconds since 1970.
    public struct Window: Codable, Sendable, Equatable {
        public var from: Double
        public var to: Double
    }

    public struct CPUPerLogin: Codable, Sendable, Equatable {
        /// The server's CPU-seconds during the run over completed logins; nil when the server was not seen.
        public var server: Double?
        /// The load generator's own CPU-seconds during the run over completed logins.
        public var generator: Double?
    }

    init(
        mode: LoadOptions.Mode, options: LoadOptions, recorder: Recorder, elapsed: Double,
        setup: (failures: [String: Int], examples: [String: String], seconds: Double), server: ServerSample?,
        generator: CPUSample?, measured: Window?
    ) {
        self.mode = mode.rawValue
        urls = options.urls
        phones = options.phones
        targetRate = mode == .sockets && options.rate == 0 ? 10 : options.rate
        seconds = elapsed
        completed = recorder.completed
        perSecond = elapsed > 0 ? Double(completed) / elapsed : 0
        let histogram = recorder.latencies
        let ms = { (microseconds: UInt64) in Double(microseconds) / 1000 }
        latencyMs = Latency(
            count: histogram.totalCount, p50: ms(histogram.valueAtPercentile(50)), p95: ms(histogram.valueAtPercentile(95)),
            p99: ms(histogram.valueAtPercentile(99)), max: ms(histogram.totalCount > 0 ? histogram.max : 0),
            mean: histogram.totalCount > 0 ? histogram.mean / 1000 : 0)
        errors = recorder.errors
        errorExamples = setup.examples.merging(recorder.examples) { first, _ in first }
        setupSeconds = setup.seconds
        setupFailures = setup.failures
        self.server = server
        self.generator = generator
        self.measured = measured
        let logins = Double(recorder.completed)
        let perLogin = { (seconds: Double?) in seconds.flatMap { logins > 0 ? 1000 * $0 / logins : nil } }
        cpuMsPerLogin = CPUPerLogin(server: perLogin(server?.cpuSeconds), generator: perLogin(generator?.cpuSeconds))
        databasePerLogin = server?.database?.per(recorder.completed)
        cores = ProcessInfo.processInfo.activeProcessorCount
    }

    public var text: String {
        let what = mode == "logins" ? "logins" : "logins beside \(phones) open phone WebSockets"
        let latencyName = mode == "logins" ? "end-to-end latency" : "input → FlowUpdate latency"
        var lines = [
            "AuthPhone load: \(mode) against \(urls.joined(separator: ", ")) on \(cores) cores",
            "  setup: \(phones) phones in \(Self.format(setupSeconds)) s"
                + (setupFailures.isEmpty ? "" : ", failed: " + Self.list(setupFailures)),
            "  \(completed) \(what) in \(Self.format(seconds)) s: \(Self.format(perSecond))/s"
                + (targetRate > 0 ? " (asked: \(Self.format(targetRate))/s)" : " (as fast as possible)"),
            "  \(latencyName), ms: p50 \(Self.format(latencyMs.p50)), p95 \(Self.format(latencyMs.p95)), "
                + "p99 \(Self.format(latencyMs.p99)), max \(Self.format(latencyMs.max)) (\(latencyMs.count) samples)",
            "  errors: " + (errors.isEmpty ? "none" : Self.list(errors)),
        ]
        for (code, example) in errorExamples.sorted(by: { $0.key < $1.key }) { lines.append("    \(code): \(example.prefix(300))") }
        if let server {
            lines.append(
                "  \(urls.count > 1 ? "servers (their /metrics, added up)" : "server (its /metrics)"): RSS \(Self.format(server.rssMiB)) MiB during the run, peak \(Self.format(server.peakRSSMiB)) MiB, "
                    + "CPU \(Self.format(server.cpuPercent)) % (100 % = one core)")
        } else {
            lines.append("  server: RSS and CPU not seen (its /metrics did not answer with them)")
        }
        if let generator {
            lines.append("  load generator (this process): CPU \(Self.format(generator.cpuPercent)) %")
        }
        let perLogin = { (ms: Double?) in ms.map { String(format: "%.2f ms", $0) } ?? "not seen" }
        lines.append(
            "  CPU per completed login: server \(perLogin(cpuMsPerLogin.server)), load generator \(perLogin(cpuMsPerLogin.generator))")
        if let database = databasePerLogin {
            lines.append(
                String(
                    format: "  PostgreSQL per completed login: %.1f transactions, %.1f statements, %.2f lost races", database.transactions,
                    database.statements, database.lostRaces))
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.1f", value) }

    static func list(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }
}
