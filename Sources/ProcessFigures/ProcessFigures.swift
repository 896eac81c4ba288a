import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process's resident memory and CPU time as Linux shows them in /proc: the server reports
/// its own on `/metrics`, the load generator reads its own beside them.
public struct ProcessFigures: Sendable, Equatable {
    public let rssBytes: UInt64
    /// The highest resident memory since the process started.
    public let peakRSSBytes: UInt64
    /// User and system CPU time, in seconds.
    public let cpuSeconds: Double

    /// This process.
    public static var current: ProcessFigures? { read(pid: getpid()) }

    /// Nil when the process cannot be read (gone, another user's, not Linux).
    public static func read(pid: Int32) -> ProcessFigures? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // fields after the command's closing parenthesis: state is field 3, utime 14, stime 15
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcessFigures(
            rssBytes: kilobytes("VmRSS", in: status) * 1024, peakRSSBytes: kilobytes("VmHWM", in: status) * 1024,
            cpuSeconds: (user + system) / ticks)
    }

    private static func kilobytes(_ field: String, in status: String) -> UInt64 {
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return UInt64(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
