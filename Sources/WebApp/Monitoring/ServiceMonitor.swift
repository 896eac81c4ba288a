import AuthFlow
import Backend
import Broadcast
import Faults
import Foundation
import HTTPTypes
import Logging
import Metrics
import ProcessFigures
import Prometheus
import PushService
import Retry
import Storage
import Synchronization

/// What the server tells the people who run it: the counters and gauges of `/metrics`
/// (swift-metrics, written out by swift-prometheus) and, at `info`, a log line at each
/// session's and flow's start and end, each push and each fault that strikes. It is fed from
/// the edges (a middleware, the streams, the parts' broadcasters and the phones' flow
/// observer), so that no flow code carries instrumentation; every hot-path call is a counter.
final class ServiceMonitor: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let logger: Logger
    /// The process's CPU time at the last scrape: the counter moves by the difference.
    private let cpuSeen = Mutex<Double>(0)
    private let databases = Mutex<[(String, DatabaseCounts)]>([])
    private let databasesSeen = Mutex<[String: DatabaseCounts.Totals]>([:])
    private let subscriptions: Mutex<[Subscription]> = Mutex([])

    init(logger: Logger) {
        self.logger = logger
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000].map { .milliseconds($0) }
        self.factory = factory
    }

    /// Listens to the parts that publish what it counts.
    func watch(backend: DemoBackend, faults: FaultInjector) {
        subscriptions.withLock {
            $0.append(backend.changes.forward { [weak self] in self?.sessionChanged($0) })
            $0.append(faults.strikes.forward { [weak self] in self?.faultStruck($0) })
        }
    }

    // MARK: what the edges report

    /// One HTTP request answered; `route` is the route's template (`/api/phones/{id}`), never the
    /// path itself, so that ids cannot multiply the series. The debug log has the path without
    /// its query, which may carry the access key.
    func answered(method: HTTPRequest.Method, path: String, route: String?, status: Int, after duration: Duration) {
        let route = route ?? "unrouted"
        logger.debug(
            "request",
            metadata: [
                "method": "\(method)", "path": "\(path)", "route": "\(route)", "status": "\(status)", "durationMs": "\(duration.milliseconds)",
            ])
        Counter(
            label: "authphone_http_requests_total", dimensions: [("method", method.rawValue), ("route", route), ("status", "\(status)")],
            factory: factory
        ).increment()
        Timer(label: "authphone_http_request_duration_seconds", dimensions: [("method", method.rawValue), ("route", route)], factory: factory)
            .record(duration: duration)
    }

    /// A WebSocket opened (`stream`: `phone` or `console`); `closed` when it ends.
    func webSocketOpened(_ stream: String) { sockets(stream).increment() }
    func webSocketClosed(_ stream: String) { sockets(stream).decrement() }

    /// The `/api/events` streams subscribed to the event hub, after one opened or closed.
    func eventStreams(open: Int) { Gauge(label: "authphone_event_streams_open", factory: factory).record(open) }

    private func sockets(_ stream: String) -> Meter {
        Meter(label: "authphone_websockets_open", dimensions: [("stream", stream)], factory: factory)
    }

    /// Every flow update a phone publishes; a flow's first and its final one count.
    func flowUpdated(phoneId: String, _ flow: Flow) {
        let entry = FlowOf(phoneId: phoneId, id: flow.id, type: flow.type.rawValue)
        guard let change = change("flow " + flow.id, to: flow.state.rawValue, final: flow.state.isFinal, flow: entry) else { return }
        if change.isNew {
            Counter(label: "authphone_flows_started_total", dimensions: [("type", entry.type)], factory: factory).increment()
            logger.info("flow started", metadata: entry.metadata)
        }
        guard let duration = change.ended else { return }
        flowEnded(entry, outcome: flow.state == .done ? "DONE" : flow.error?.code ?? "ERROR", after: duration)
    }

    /// A phone deleted (`phoneId`), or every phone reset (nil): their flows stop without a final
    /// update, so they end here with `outcome`, and a reset's erased sessions are no longer under
    /// way either. Left in the map, they would count as under way for ever.
    func forgot(phoneId: String?, outcome: String) {
        let now = ContinuousClock.now
        let stopped = underway.withLock { underway in
            let stopped = underway.filter { _, seen in seen.flow.map { phoneId == nil || $0.phoneId == phoneId } ?? (phoneId == nil) }
            for key in stopped.keys { underway.removeValue(forKey: key) }
            return stopped.values
        }
        for seen in stopped { if let flow = seen.flow { flowEnded(flow, outcome: outcome, after: now - seen.since) } }
    }

    private func flowEnded(_ flow: FlowOf, outcome: String, after duration: Duration) {
        Counter(label: "authphone_flows_ended_total", dimensions: [("type", flow.type), ("outcome", outcome)], factory: factory).increment()
        Timer(label: "authphone_flow_duration_seconds", dimensions: [("type", flow.type)], factory: factory).record(duration: duration)
        var metadata = flow.metadata
        metadata["outcome"] = "\(outcome)"
        metadata["durationMs"] = "\(duration.milliseconds)"
        logger.info("flow ended", metadata: metadata)
    }

    /// Which flow an entry under way is.
    private struct FlowOf {
        let phoneId: String
        let id: String
        let type: String

        var metadata: Logger.Metadata { ["phone": "\(phoneId)", "flow": "\(id)", "type": "\(type)"] }
    }

    /// A backend session entered a state (a state published again counts once).
    func sessionChanged(_ session: SessionChange) {
        let state = session.status.rawValue
        guard let change = change("session " + session.id, to: state, final: session.status.isFinal) else { return }
        Counter(label: "authphone_sessions_total", dimensions: [("type", session.type), ("state", state)], factory: factory).increment()
        var metadata: Logger.Metadata = ["session": "\(session.id)", "type": "\(session.type)", "user": "\(session.userId)"]
        if change.isNew { logger.info("session started", metadata: metadata) }
        guard let duration = change.ended else { return }
        metadata["outcome"] = "\(state)"
        metadata["durationMs"] = "\(duration.milliseconds)"
        if let failure = session.failure { metadata["failure"] = "\(failure)" }
        logger.info("session ended", metadata: metadata)
    }

    private struct Change {
        /// The first state seen of it.
        let isNew: Bool
        /// Its duration, when this state ends it.
        let ended: Duration?
    }

    /// Flows and sessions under way, by key: since when, the state last seen, and which flow.
    private let underway = Mutex<[String: (since: ContinuousClock.Instant, state: String, flow: FlowOf?)]>([:])

    /// Nil when `state` is the one already seen.
    private func change(_ key: String, to state: String, final: Bool, flow: FlowOf? = nil) -> Change? {
        let now = ContinuousClock.now
        return underway.withLock { underway in
            let seen = underway[key]
            guard seen?.state != state else { return nil }
            if final { underway.removeValue(forKey: key) } else { underway[key] = (seen?.since ?? now, state, flow) }
            return Change(isNew: seen == nil, ended: final ? now - (seen?.since ?? now) : nil)
        }
    }

    /// A send to the FCM endpoint: its fate when accepted, FCM's error code when refused (its
    /// message, which may name the token, stays out of the log).
    func pushed(_ result: Result<PushService.Accepted, FCMError>) {
        let outcome: String
        var metadata: Logger.Metadata = [:]
        switch result {
        case .success(let accepted):
            outcome = accepted.fate.rawValue
            metadata["message"] = "\(accepted.name)"
        case .failure(let error): outcome = error.errorCode
        }
        metadata["outcome"] = "\(outcome)"
        Counter(label: "authphone_pushes_total", dimensions: [("outcome", outcome)], factory: factory).increment()
        logger.info("push", metadata: metadata)
    }

    /// A retry planned: a phone's device information change or session fetch, or the backend's push.
    func retried(_ operation: String) {
        Counter(label: "authphone_retries_total", dimensions: [("operation", operation)], factory: factory).increment()
    }

    /// A fault set on purpose struck a request or a push.
    func faultStruck(_ fault: Fault) {
        let view = FaultView(fault)
        Counter(label: "authphone_faults_applied_total", dimensions: [("target", view.target), ("kind", view.kind)], factory: factory)
            .increment()
        var metadata: Logger.Metadata = ["fault": "\(fault.id)", "target": "\(view.target)", "kind": "\(view.kind)"]
        if let phoneId = view.phoneId { metadata["phone"] = "\(phoneId)" }
        logger.info("fault applied", metadata: metadata)
    }

    // MARK: the scrape

    /// The stores on PostgreSQL, by name, whose transactions, statements and lost races the
    /// scrape reports (`authphone_database_*_total{store}`).
    func watch(databases: [(String, DatabaseCounts)]) {
        self.databases.withLock { $0 = databases }
    }

    /// The Prometheus text, with the gauges that are read rather than counted brought up to date.
    func scrape(faults: FaultInjector) -> String {
        let flowsUnderway = underway.withLock { $0.values.compactMap(\.flow?.type) }
        for type in FlowType.allCases.map(\.rawValue) {
            Gauge(label: "authphone_flows_underway", dimensions: [("type", type)], factory: factory)
                .record(flowsUnderway.filter { $0 == type }.count)
        }
        let inForce = faults.active.map { FaultView($0).target }
        for target in ["phone", "backend", "push"] {
            Gauge(label: "authphone_faults_active", dimensions: [("target", target)], factory: factory)
                .record(inForce.filter { $0 == target }.count)
        }
        for (store, counts) in databases.withLock({ $0 }) {
            // read and kept under one lock, so that two scrapes at once count each change once
            let (before, now) = databasesSeen.withLock { seen in
                let now = counts.totals
                defer { seen[store] = now }
                return (seen[store] ?? DatabaseCounts.Totals(), now)
            }
            for (name, added) in [
                ("authphone_database_transactions_total", now.transactions - before.transactions),
                ("authphone_database_statements_total", now.statements - before.statements),
                ("authphone_database_lost_races_total", now.lostRaces - before.lostRaces),
            ] {
                Counter(label: name, dimensions: [("store", store)], factory: factory).increment(by: max(0, added))
            }
        }
        if let process = ProcessFigures.current {
            Gauge(label: "process_resident_memory_bytes", factory: factory).record(Double(process.rssBytes))
            Gauge(label: "authphone_process_peak_resident_memory_bytes", factory: factory).record(Double(process.peakRSSBytes))
            let added = cpuSeen.withLock { seen in
                defer { seen = max(seen, process.cpuSeconds) }
                return max(0, process.cpuSeconds - seen)
            }
            FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory).increment(by: added)
        }
        return registry.emitToString()
    }
}

extension Duration {
    fileprivate var milliseconds: Int { Int((seconds * 1000).rounded()) }
}
