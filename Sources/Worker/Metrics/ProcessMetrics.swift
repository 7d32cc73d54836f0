import Foundation
import Synchronization

/// The standard Prometheus process metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`, `process_start_time_seconds`),
/// read from `/proc/self` when `/metrics` is scraped. On a system without `/proc` nothing is recorded.
public final class ProcessMetrics: Sendable {
    private let metrics: LiveRelayMetrics
    /// The CPU seconds already counted (the counter only goes up by what was spent since).
    private let counted = Mutex<Double>(0)

    public init(metrics: LiveRelayMetrics) { self.metrics = metrics }

    /// One reading of the process's figures.
    public struct Reading: Sendable, Equatable {
        public var cpuSeconds: Double
        public var residentBytes: Int
        public var virtualBytes: Int
        public var openDescriptors: Int
        public var maxDescriptors: Int
        public var startTime: Double
    }

    /// Reads `/proc/self` and records what it says.
    public func sample() {
        guard let reading = Self.read() else { return }
        let spent = counted.withLock { counted -> Double in
            let spent = max(0, reading.cpuSeconds - counted)
            counted = max(counted, reading.cpuSeconds)
            return spent
        }
        metrics.process(reading, cpuSpent: spent)
    }

    /// The figures of this process now, or `nil` without `/proc`.
    public static func read() -> Reading? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm) ": state is field 3; utime 14, stime 15, starttime 22, vsize 23, rss 24.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        func field(_ n: Int) -> Double? { fields.count > n - 3 ? Double(fields[n - 3]) : nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        guard let utime = field(14), let stime = field(15), let start = field(22), let vsize = field(23),
            let rss = field(24), ticks > 0
        else { return nil }
        var bootTime = 0.0
        if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") })
        {
            bootTime = Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        var limit = rlimit()
        let max = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(limit.rlim_cur) : 0
        return Reading(
            cpuSeconds: (utime + stime) / ticks, residentBytes: Int(rss * page), virtualBytes: Int(vsize),
            openDescriptors: open, maxDescriptors: max, startTime: bootTime + start / ticks)
    }
}
