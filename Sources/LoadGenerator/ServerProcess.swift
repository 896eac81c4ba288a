import Foundation
import Retry

#if canImport(Glibc)
    import Glibc
#endif

/// The server's process as Linux shows it in /proc: its resident memory and CPU time. The load
/// generator reads its own process the same way (`ServerProcess.generator`).
struct ServerProcess: Sendable {
    struct Reading: Sendable {
        let at: ContinuousClock.Instant
        let rssBytes: UInt64
        let peakRSSBytes: UInt64
        /// User and system CPU time, in seconds.
        let cpuSeconds: Double
    }

    let pid: Int32

    init?(pid: Int32?) {
        guard let pid, FileManager.default.fileExists(atPath: "/proc/\(pid)/stat") else { return nil }
        self.pid = pid
    }

    /// This process: the load generator itself.
    static var generator: ServerProcess? { ServerProcess(pid: getpid()) }

    func reading() -> Reading? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // fields after the command's closing parenthesis: state is field 3, utime 14, stime 15
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return Reading(
            at: .now, rssBytes: Self.kilobytes("VmRSS", in: status) * 1024, peakRSSBytes: Self.kilobytes("VmHWM", in: status) * 1024,
            cpuSeconds: (user + system) / ticks)
    }

    private static func kilobytes(_ field: String, in status: String) -> UInt64 {
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return UInt64(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// The process listening on a local TCP port: its socket's inode from /proc/net/tcp, then
    /// the process holding that inode. Nil when it cannot be seen (another user's, another host).
    static func listening(onPort port: Int) -> Int32? {
        let hexPort = String(format: ":%04X", port)
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ", omittingEmptySubsequences: true)
                // local address, state 0A (LISTEN), inode
                if columns.count > 9, columns[1].hasSuffix(hexPort), columns[3] == "0A" { inodes.insert(String(columns[9])) }
            }
        }
        guard !inodes.isEmpty, let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for pid in pids.compactMap(Int32.init) {
            guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { continue }
            for fd in fds {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                    target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
                {
                    return pid
                }
            }
        }
        return nil
    }
}

/// The server while the load ran.
public struct ServerSample: Codable, Sendable, Equatable {
    public var pid: Int32
    /// The highest resident memory seen during the run, and the process's peak since it started.
    public var rssMiB: Double
    public var peakRSSMiB: Double
    /// CPU time over wall time during the run: 200 % is both cores of a 2-core machine.
    public var cpuPercent: Double
    /// User and system CPU time during the run, in seconds.
    public var cpuSeconds: Double

    init(pid: Int32, from start: ServerProcess.Reading, to end: ServerProcess.Reading, highestRSS: UInt64) {
        self.pid = pid
        rssMiB = Double(highestRSS) / 1_048_576
        peakRSSMiB = Double(end.peakRSSBytes) / 1_048_576
        let cpu = CPUSample(from: start, to: end)
        cpuPercent = cpu.cpuPercent
        cpuSeconds = cpu.cpuSeconds
    }
}

/// A process's CPU time during the run (the load generator's own, beside the server's).
public struct CPUSample: Codable, Sendable, Equatable {
    /// User and system CPU time, in seconds.
    public var cpuSeconds: Double
    /// CPU time over wall time: 100 % is one core.
    public var cpuPercent: Double

    init(from start: ServerProcess.Reading, to end: ServerProcess.Reading) {
        cpuSeconds = max(0, end.cpuSeconds - start.cpuSeconds)
        let wall = (end.at - start.at).seconds
        cpuPercent = wall > 0 ? 100 * cpuSeconds / wall : 0
    }
}
