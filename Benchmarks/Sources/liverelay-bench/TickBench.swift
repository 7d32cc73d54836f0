import ArgumentParser
import Foundation
import LiveRelayCore

/// Wall time of a cold `liverelay tick`: a new process, a new state file, 5 `file:` feeds and 50 rules.
struct TickBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tick", abstract: "Wall time of a cold `liverelay tick` with 50 rules and 5 file: feeds.")

    @Option(help: "The liverelay binary (default: the one built beside this benchmark).")
    var liverelay: String?
    @Option(help: "Runs; the median and the best are reported.") var runs = 7

    func run() throws {
        let binary = liverelayBinary(liverelay)
        let root = FileManager.default.currentDirectoryPath
        let dir = try benchDirectory("tick")
        defer { try? FileManager.default.removeItem(at: dir) }
        // Five feeds over the recordings, each with the demo mapping; 50 rules spread over them.
        let demo = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: "Samples/demo/liverelay.json")))
        let mapping = demo["feeds"]!.arrayValue![0]["mapping"]!
        let recordings = [
            "espn-soccer-scoreboard-1-first-half.json", "espn-soccer-scoreboard-2-extra-time.json",
            "espn-soccer-scoreboard-3-final-pens.json", "espn-soccer-scoreboard-1-first-half.json",
            "espn-soccer-scoreboard-2-extra-time.json",
        ]
        let feeds: [JSONValue] = recordings.enumerated().map { i, file in
            ["id": .string("feed-\(i)"), "url": .string("file:\(root)/Samples/recordings/\(file)"), "mapping": mapping]
        }
        let soccer = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: "Rules/soccer.rules.json")))
        var rules: [JSONValue] = []
        for i in 0..<50 {
            guard case .object(var rule) = soccer["rules"]!.arrayValue![i % 4] else { continue }
            rule["id"] = .string("rule-\(i)")
            rule["feed"] = .string("feed-\(i % 5)")
            if case .object(var activity) = rule["activity"] {
                activity["key"] = ["cat": [.string("f\(i % 5)-"), ["var": "entity.id"]]]
                rule["activity"] = .object(activity)
            }
            rules.append(.object(rule))
        }
        try JSONValue.object(["rules": .array(rules)]).jsonData().write(to: dir.appendingPathComponent("rules.json"))
        let config: JSONValue = ["feeds": .array(feeds), "rules": ["rules.json"], "state": "state.sqlite"]
        try config.jsonData().write(to: dir.appendingPathComponent("liverelay.json"))

        var times: [Double] = []
        var pushes = 0
        for _ in 0..<runs {
            for s in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(at: dir.appendingPathComponent("state.sqlite" + s))
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["tick", "--config", dir.appendingPathComponent("liverelay.json").path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            let printed = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            times.append((ContinuousClock.now - start).seconds)
            guard process.terminationStatus == 0 else {
                throw ValidationError("liverelay tick exited \(process.terminationStatus)")
            }
            pushes = String(decoding: printed, as: UTF8.self).components(separatedBy: ":method: POST").count - 1
        }
        printTable(
            ["case", "pushes", "median ms", "best ms"],
            [
                [
                    "cold tick: 5 file: feeds (32 matches each), 50 rules", "\(pushes)", ms(percentile(times, 0.5)),
                    ms(times.min()!),
                ]
            ])
    }
}
