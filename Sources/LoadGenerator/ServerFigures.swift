import Foundation
import ProcessFigures

/// A process's resident memory and CPU time at one moment: the server's, read off its
/// `/metrics` (so the server may run on another host), and the load generator's own, off /proc.
struct ProcessReading: Sendable {
    let at: ContinuousClock.Instant
    let rssBytes: UInt64
    let peakRSSBytes: UInt64
    /// User and system CPU time, in seconds.
    let cpuSeconds: Double
    /// What its stores asked of PostgreSQL so far, all stores added up; nil on SQLite.
    var database: DatabaseWork?

    /// The load generator itself; nil off Linux.
    static func generator() -> ProcessReading? {
        ProcessFigures.current.map {
            ProcessReading(at: .now, rssBytes: $0.rssBytes, peakRSSBytes: $0.peakRSSBytes, cpuSeconds: $0.cpuSeconds)
        }
    }

    /// Several servers' added up (the instances sharing one PostgreSQL: their memory and CPU
    /// together); nil when one of them cannot be read.
    static func servers(_ apis: [ServerAPI]) async -> ProcessReading? {
        var total = ProcessReading(at: .now, rssBytes: 0, peakRSSBytes: 0, cpuSeconds: 0)
        for api in apis {
            guard let reading = await server(api) else { return nil }
            total = ProcessReading(
                at: .now, rssBytes: total.rssBytes + reading.rssBytes, peakRSSBytes: total.peakRSSBytes + reading.peakRSSBytes,
                cpuSeconds: total.cpuSeconds + reading.cpuSeconds, database: DatabaseWork.adding(total.database, reading.database))
        }
        return total
    }

    /// The server's, from its Prometheus text; nil when the server cannot be read or reports none.
    static func server(_ api: ServerAPI) async -> ProcessReading? {
        guard let text = try? await api.text("/metrics") else { return nil }
        let figures = Self.samples(text)
        guard let rss = figures["process_resident_memory_bytes"], let cpu = figures["process_cpu_seconds_total"] else { return nil }
        let totals = Self.totals(text)
        return ProcessReading(
            at: .now, rssBytes: UInt64(rss), peakRSSBytes: UInt64(figures["authphone_process_peak_resident_memory_bytes"] ?? rss),
            cpuSeconds: cpu,
            database: totals["authphone_database_transactions_total"].map {
                DatabaseWork(
                    transactions: $0, statements: totals["authphone_database_statements_total"] ?? 0,
                    lostRaces: totals["authphone_database_lost_races_total"] ?? 0)
            })
    }

    /// Every series of a Prometheus text added up by name, whatever its labels.
    static func totals(_ text: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let name = line.split(whereSeparator: { $0 == "{" || $0 == " " }).first,
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            found[String(name), default: 0] += value
        }
        return found
    }

    /// The series without labels (`name value` lines) of a Prometheus text.
    static func samples(_ text: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.contains("{") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { found[String(parts[0])] = value }
        }
        return found
    }
}

/// What a server's stores asked of PostgreSQL (`authphone_database_*_total`).
public struct DatabaseWork: Codable, Sendable, Equatable {
    public var transactions: Double
    public var statements: Double
    /// Transactions run again because they lost a serialization race.
    public var lostRaces: Double

    static func adding(_ one: DatabaseWork?, _ other: DatabaseWork?) -> DatabaseWork? {
        guard let one else { return other }
        guard let other else { return one }
        return DatabaseWork(
            transactions: one.transactions + other.transactions, statements: one.statements + other.statements,
            lostRaces: one.lostRaces + other.lostRaces)
    }

    /// What was done from `start` to `end`.
    static func between(_ start: DatabaseWork?, _ end: DatabaseWork?) -> DatabaseWork? {
        guard let start, let end else { return nil }
        return DatabaseWork(
            transactions: end.transactions - start.transactions, statements: end.statements - start.statements,
            lostRaces: end.lostRaces - start.lostRaces)
    }

    /// Each figure's share of one of `count` logins.
    func per(_ count: Int) -> DatabaseWork? {
        guard count > 0 else { return nil }
        let count = Double(count)
        return DatabaseWork(transactions: transactions / count, statements: statements / count, lostRaces: lostRaces / count)
    }
}

/// The server while the load ran.
public struct ServerSample: Codable, Sendable, Equatable {
    /// The highest resident memory seen during the run, and the process's peak since it started.
    public var rssMiB: Double
    public var peakRSSMiB: Double
    /// CPU time over wall time during the run: 200 % is both cores of a 2-core machine.
    public var cpuPercent: Double
    /// User and system CPU time during the run, in seconds.
    public var cpuSeconds: Double
    /// What its stores asked of PostgreSQL during the run; nil on SQLite.
    public var database: DatabaseWork?

    init(from start: ProcessReading, to end: ProcessReading, highestRSS: UInt64) {
        rssMiB = Double(highestRSS) / 1_048_576
        peakRSSMiB = Double(end.peakRSSBytes) / 1_048_576
        let cpu = CPUSample(from: start, to: end)
        cpuPercent = cpu.cpuPercent
        cpuSeconds = cpu.cpuSeconds
        database = DatabaseWork.between(start.database, end.database)
    }
}

/// A process's CPU time during the run (the load generator's own, beside the server's).
public struct CPUSample: Codable, Sendable, Equatable {
    /// User and system CPU time, in seconds.
    public var cpuSeconds: Double
    /// CPU time over wall time: 100 % is one core.
    public var cpuPercent: Double

    init(from start: ProcessReading, to end: ProcessReading) {
        cpuSeconds = max(0, end.cpuSeconds - start.cpuSeconds)
        let wall = (end.at - start.at).seconds
        cpuPercent = wall > 0 ? 100 * cpuSeconds / wall : 0
    }
}
