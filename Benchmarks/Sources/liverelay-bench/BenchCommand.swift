import ArgumentParser
import Foundation

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "liverelay-bench",
        abstract: "LiveRelay's benchmarks. Build in release mode: swift run -c release liverelay-bench <name>.",
        subcommands: [
            ThrottleBench.self, RulesBench.self, RuleLoadBench.self, PipelineBench.self, TickBench.self,
            FanoutBench.self, MemoryBench.self, TimerBench.self, ReportBench.self, ChannelBench.self, OutboxBench.self,
            WorkersBench.self, PersonalBench.self,
        ])
}

/// Prints rows as an aligned table.
func printTable(_ header: [String], _ rows: [[String]]) {
    let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
            .joined(separator: " | ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-"))
    for row in rows { print(line(row)) }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The `liverelay` binary a benchmark runs: the one given, or the one built beside the benchmark.
func liverelayBinary(_ given: String?) -> String {
    given
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("liverelay").path
}

/// A new empty temporary directory for one benchmark run; the caller removes it.
func benchDirectory(_ name: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
        "liverelay-\(name)-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}
