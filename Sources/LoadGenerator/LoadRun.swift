import AsyncHTTPClient
import BackendAPI
import Foundation
import Histogram
import NIOCore
import Retry
import Synchronization

/// What to run against a server, and for how long: it always stops by itself.
public struct LoadOptions: Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        /// N enrolled phones logging in out of band (backend session → FCM push → confirm, PIN → DONE).
        case logins
        /// N phone WebSockets held open while a few phones log in; the page's input → FlowUpdate latency.
        case sockets
    }

    /// The instances to drive (one, or several sharing one PostgreSQL): phone N is served by
    /// the instance N mod their count, its screen, its API calls and its logins' sessions alike.
    public var urls: [String]
    public var mode: Mode = .logins
    public var phones = 100
    /// Logins a second started on schedule (open loop); 0: each phone logs in again at once (closed loop).
    public var rate: Double = 0
    public var duration: Duration = .seconds(10)
    /// Stop after this many logins, if sooner.
    public var count: Int?
    /// Phones that log in during a `sockets` run.
    public var loginPhones = 10
    /// Phones enrolled (or connected) at once while setting up.
    public var setupConcurrency = 32
    /// One login's limit; past it the login counts as TIMEOUT.
    public var timeout: Duration = .seconds(30)
    public var pin = "260418"
    /// Progress lines on standard error, once a second.
    public var progress = true

    public init(urls: [String]) {
        self.urls = urls
    }

    public func validated() throws -> LoadOptions {
        guard (1...64).contains(urls.count) else { throw LoadFailure("INVALID_OPTION", "give 1 to 64 --url") }
        for url in urls where WireHTTPClient.sendableURL(url)?.scheme?.lowercased() != "http" {
            throw LoadFailure("INVALID_OPTION", "--url \(url) must be an http:// address (port 1 to 65535) of a running AuthPhone")
        }
        guard (1...20_000).contains(phones) else { throw LoadFailure("INVALID_OPTION", "--phones must be between 1 and 20000") }
        guard rate >= 0, rate <= 100_000 else { throw LoadFailure("INVALID_OPTION", "--rate must be between 0 and 100000 a second") }
        guard duration > .zero, duration <= .seconds(3600) else { throw LoadFailure("INVALID_OPTION", "--duration must be 1 to 3600 s") }
        if let count, count < 1 { throw LoadFailure("INVALID_OPTION", "--count must be at least 1") }
        guard (1...phones).contains(loginPhones) || mode == .logins else {
            throw LoadFailure("INVALID_OPTION", "--login-phones must be between 1 and --phones")
        }
        var options = self
        options.urls = urls.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        return options
    }
}

/// Runs a load and reports what it measured.
public enum LoadRun {
    public static func run(_ options: LoadOptions) async throws -> LoadReport {
        let options = try options.validated()
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: WireHTTPClient.idleTimeout, concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
        // A request waits for a pooled connection as long as its connect time-out allows: while
        // 10,000 phones are set up the pool's 256 connections are all busy for seconds at a time,
        // and 5 s failed one phone in six (getConnectionFromPoolTimeout).
        configuration.timeout = .init(connect: .seconds(60), read: .seconds(60))
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let apis = options.urls.map { ServerAPI(base: $0, http: http, timeout: .seconds(60)) }
        let report: Result<LoadReport, any Error>
        do {
            for api in apis { _ = try await api.call(.GET, "/health") }
            report = .success(
                options.mode == .logins
                    ? await logins(options, apis: apis)
                    : await sockets(options, apis: apis))
        } catch {
            report = .failure(error)
        }
        try? await http.shutdown()
        return try report.get()
    }

    /// N phones enrol, then all log in until the schedule ends.
    static func logins(_ options: LoadOptions, apis: [ServerAPI]) async -> LoadReport {
        let schedule = Schedule(rate: options.rate, duration: options.duration, count: options.count)
        return await run(.logins, options, apis: apis, schedule: schedule) { phone, api, _, recorder in
            while let intended = await schedule.next() {
                if await attempt(options, recorder, { try await phone.login(api) }) { recorder.succeeded(since: intended) }
            }
        }
    }

    /// N phone WebSockets held open while a few phones log in on schedule; each input's
    /// FlowUpdate is timed from the page's side.
    static func sockets(_ options: LoadOptions, apis: [ServerAPI]) async -> LoadReport {
        let schedule = Schedule(rate: options.rate > 0 ? options.rate : 10, duration: options.duration, count: options.count)
        return await run(.sockets, options, apis: apis, schedule: schedule) { phone, api, index, recorder in
            guard index < options.loginPhones else {
                // an idle screen: holds its connection until the run ends
                await schedule.finished()
                return
            }
            while await schedule.next() != nil {
                if await attempt(options, recorder, { try await phone.login(api) { recorder.record($0) } }) {
                    recorder.succeeded(since: nil)
                }
            }
        }
    }

    /// Sets up N phones, each with its screen's WebSocket open (enrolled if it will log in),
    /// starts the schedule once all are ready, and runs `work` for each while the servers are watched.
    private static func run(
        _ mode: LoadOptions.Mode, _ options: LoadOptions, apis: [ServerAPI], schedule: Schedule,
        work: @escaping @Sendable (ScriptedPhone, ServerAPI, Int, Recorder) async -> Void
    ) async -> LoadReport {
        let recorder = Recorder()
        let gate = SetupGate(expected: options.phones, concurrency: options.setupConcurrency)
        let label = "\(mode.rawValue)-" + UUID().uuidString.prefix(8).lowercased()
        let progress = options.progress ? Task { await Self.report(progress: recorder, gate: gate, schedule: schedule) } : nil
        let sample = await withTaskGroup(of: Watched?.self) { group -> Watched? in
            for index in 0..<options.phones {
                let api = apis[index % apis.count]
                group.addTask {
                    do {
                        try await ScriptedPhone.withNewPhone(api, name: "\(label) \(index)", user: "\(label)-\(index)", pin: options.pin) { phone in
                            let logsIn = mode == .logins || index < options.loginPhones
                            try await gate.setUp { if logsIn { try await phone.enrol(api) } }
                            guard await gate.allReady() else { return }
                            await schedule.start()
                            await work(phone, api, index, recorder)
                        }
                    } catch let failure as LoadFailure {
                        await gate.failed(failure)
                    } catch {
                        await gate.failed(LoadFailure("\(type(of: error))", "\(error)"))
                    }
                    return nil
                }
            }
            group.addTask { await Self.watch(apis, gate: gate, schedule: schedule) }
            return await group.reduce(into: nil) { found, sample in found = found ?? sample }
        }
        progress?.cancel()
        return LoadReport(
            mode: mode, options: options, recorder: recorder, elapsed: await schedule.elapsed(),
            setup: await gate.summary(), server: sample?.server, generator: sample?.generator, measured: sample?.measured)
    }

    /// One login under the time limit; a failure is counted by its code.
    private static func attempt(_ options: LoadOptions, _ recorder: Recorder, _ login: @escaping @Sendable () async throws -> Void) async -> Bool {
        do {
            try await withTimeout(options.timeout, login)
            return true
        } catch let failure as LoadFailure {
            recorder.failed(failure)
        } catch {
            recorder.failed(LoadFailure("\(type(of: error))", "\(error)"))
        }
        return false
    }

    /// What `watch` saw: the server's RSS and CPU, if it could be read, and the load generator's
    /// own CPU, over `measured`.
    struct Watched: Sendable {
        var server: ServerSample?
        var generator: CPUSample?
        var measured: LoadReport.Window
    }

    /// The servers' RSS (highest seen) and CPU while the run lasts, read off their `/metrics` and
    /// added up, every connection still open, and the load generator's own CPU over the same time.
    private static func watch(_ apis: [ServerAPI], gate: SetupGate, schedule: Schedule) async -> Watched? {
        guard await gate.allReady() else { return nil }
        await schedule.start()
        let from = Date()
        let ownStart = ProcessReading.generator()
        let start = await ProcessReading.servers(apis)
        var highest = start?.rssBytes ?? 0
        while await schedule.isRunning {
            try? await Task.sleep(for: .milliseconds(250))
            highest = max(highest, await ProcessReading.servers(apis)?.rssBytes ?? 0)
        }
        let end = await ProcessReading.servers(apis)
        let ownEnd = ProcessReading.generator()
        var watched = Watched(measured: LoadReport.Window(from: from.timeIntervalSince1970, to: Date().timeIntervalSince1970))
        if let ownStart, let ownEnd { watched.generator = CPUSample(from: ownStart, to: ownEnd) }
        if let start, let end { watched.server = ServerSample(from: start, to: end, highestRSS: max(highest, end.rssBytes)) }
        return watched
    }

    private static func report(progress recorder: Recorder, gate: SetupGate, schedule: Schedule) async {
        var last = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let (ready, failed) = await gate.progress()
            let done = recorder.completed
            let errors = recorder.errorCount
            let line =
                await schedule.isRunning
                ? "running: \(done) done (\(done - last)/s), \(errors) errors"
                : "setting up: \(ready) phones ready, \(failed) failed"
            FileHandle.standardError.write(Data((line + "\n").utf8))
            last = done
        }
    }
}

/// Runs `body`, or throws TIMEOUT once `limit` has passed.
func withTimeout(_ limit: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw LoadFailure("TIMEOUT", "no answer within \(limit)")
        }
        defer { group.cancelAll() }
        try await group.next()
    }
}

/// Latencies (HdrHistogram, microseconds) and outcomes, from any task.
final class Recorder: Sendable {
    private struct State {
        var latencies = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        var completed = 0
        var errors: [String: Int] = [:]
        var examples: [String: String] = [:]
    }
    private let state = Mutex(State())

    var completed: Int { state.withLock { $0.completed } }
    var errorCount: Int { state.withLock { $0.errors.values.reduce(0, +) } }
    var errors: [String: Int] { state.withLock { $0.errors } }
    var examples: [String: String] { state.withLock { $0.examples } }
    var latencies: Histogram<UInt64> { state.withLock { $0.latencies } }

    /// A success; its latency runs from when it was meant to start (open loop: no coordinated omission).
    func succeeded(since intended: ContinuousClock.Instant?) {
        state.withLock { state in
            state.completed += 1
            if let intended { _ = state.latencies.record(Self.microseconds(ContinuousClock.now - intended)) }
        }
    }

    func record(_ latency: Duration) {
        state.withLock { _ = $0.latencies.record(Self.microseconds(latency)) }
    }

    func failed(_ failure: LoadFailure) {
        state.withLock { state in
            state.errors[failure.code, default: 0] += 1
            state.examples[failure.code] = state.examples[failure.code] ?? failure.detail
        }
    }

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
    }
}

/// Setup with bounded concurrency; the run starts once every phone is set up (or failed).
actor SetupGate {
    private let expected: Int
    private let concurrency: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var ready = 0
    private var failures: [String: Int] = [:]
    /// The first failure of each kind, word for word, for the report.
    private var examples: [String: String] = [:]
    private var released: [CheckedContinuation<Bool, Never>] = []
    private let began = ContinuousClock.now
    private var finishedAt: ContinuousClock.Instant?

    init(expected: Int, concurrency: Int) {
        self.expected = expected
        self.concurrency = max(1, concurrency)
    }

    func setUp(_ work: @Sendable () async throws -> Void) async throws {
        while running >= concurrency { await withCheckedContinuation { waiting.append($0) } }
        running += 1
        defer {
            running -= 1
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        try await work()
        ready += 1
        releaseIfDone()
    }

    func failed(_ failure: LoadFailure) {
        failures[failure.code, default: 0] += 1
        examples[failure.code] = examples[failure.code] ?? failure.detail
        releaseIfDone()
    }

    /// Waits until every phone is set up or failed; false if none is ready.
    func allReady() async -> Bool {
        if ready + failures.values.reduce(0, +) >= expected { return ready > 0 }
        return await withCheckedContinuation { released.append($0) }
    }

    private func releaseIfDone() {
        guard ready + failures.values.reduce(0, +) >= expected else { return }
        finishedAt = finishedAt ?? .now
        for waiter in released { waiter.resume(returning: ready > 0) }
        released = []
    }

    func progress() -> (ready: Int, failed: Int) { (ready, failures.values.reduce(0, +)) }

    func summary() -> (failures: [String: Int], examples: [String: String], seconds: Double) {
        (failures, examples, ((finishedAt ?? .now) - began).seconds)
    }
}

/// When each login is meant to start: on a fixed rate from the start (open loop), or at once
/// (closed loop), until the duration or the count runs out.
actor Schedule {
    private let rate: Double
    private let duration: Duration
    private let count: Int?
    private var began: ContinuousClock.Instant?
    private var issued = 0
    private var ended: ContinuousClock.Instant?
    private var endWaiters: [CheckedContinuation<Void, Never>] = []

    init(rate: Double, duration: Duration, count: Int?) {
        self.rate = rate
        self.duration = duration
        self.count = count
    }

    /// Starts the run (the first caller does; the others find it started).
    func start() {
        if began == nil {
            let now = ContinuousClock.now
            began = now
            let duration = duration
            Task { [weak self] in
                try? await Task.sleep(until: now + duration)
                await self?.end()
            }
        }
    }

    var isRunning: Bool { began != nil && ended == nil }

    /// The next login's intended start, after waiting for it; nil when the run is over.
    func next() async -> ContinuousClock.Instant? {
        guard let began, ended == nil else { return nil }
        if let count, issued >= count {
            end()
            return nil
        }
        let slot = issued
        issued += 1
        guard rate > 0 else { return .now }
        let intended = began + .nanoseconds(Int64(Double(slot) / rate * 1e9))
        guard intended < began + duration else { return nil }
        try? await Task.sleep(until: intended)
        return ended == nil ? intended : nil
    }

    func finished() async {
        if ended != nil { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    private func end() {
        guard ended == nil else { return }
        ended = .now
        for waiter in endWaiters { waiter.resume() }
        endWaiters = []
    }

    func elapsed() -> Double {
        guard let began else { return 0 }
        return ((ended ?? .now) - began).seconds
    }
}
