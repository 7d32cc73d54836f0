import ArgumentParser
import Foundation
import LiveRelayCore
import Rules

/// How long loading a rule file takes as it grows: `check`, start-up and every reload pay it.
struct RuleLoadBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rule-load",
        abstract: "Seconds to load generated rule files of growing size (copies of the example goal rule).")

    @Option(help: "The rule file whose first rule is copied.") var rules = "Rules/soccer.rules.json"
    @Option(help: "Rule counts to load, comma-separated.") var counts = "1000,5000,15000"

    func run() throws {
        let document = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: rules)))
        guard case .object(let template)? = document["rules"]?[1] else {
            throw ValidationError("\(rules) has no second rule to copy")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("liverelay-rule-load")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var rows: [[String]] = []
        for count in counts.split(separator: ",").compactMap({ Int($0) }) {
            var copies: [JSONValue] = []
            copies.reserveCapacity(count)
            for i in 0..<count {
                var rule = template
                rule["id"] = .string("goal-\(i)")
                copies.append(.object(rule))
            }
            // One rule per line, as a formatter would write a long file.
            let text =
                "{\"rules\": [\n" + copies.map { $0.jsonString() }.joined(separator: ",\n") + "\n]}\n"
            let path = directory.appendingPathComponent("rules-\(count).json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let started = ContinuousClock.now
            let set = RuleLoader().load(paths: [path])
            let elapsed = ContinuousClock.now - started
            guard set.diagnostics.isEmpty, set.rules.count == count else {
                throw ValidationError("\(set.diagnostics.prefix(3))")
            }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            rows.append([
                "\(count)", String(format: "%.1f MB", Double(text.utf8.count) / 1e6), String(format: "%.2f s", seconds),
                String(format: "%.0f", Double(count) / seconds),
            ])
        }
        printTable(["rules", "file", "load", "rules/s"], rows)
    }
}
