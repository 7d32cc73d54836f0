import ArgumentParser
import Foundation
import LiveRelayCore
import Store
import Throttling

/// Peak RSS of a `liverelay tick` over a state file with many registered tokens and live activities.
struct MemoryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Peak RSS of liverelay tick with 1,000,000 registered tokens and 100,000 live activities.")

    @Option(help: "Registered activity tokens.") var tokens = 1_000_000
    @Option(help: "Live activities (each with a ledger record and throttle state).") var activities = 100_000
    @Option(help: "The liverelay binary (default: the one built beside this benchmark).") var liverelay: String?

    func run() async throws {
        let binary = liverelayBinary(liverelay)
        let root = FileManager.default.currentDirectoryPath
        let dir = try benchDirectory("memory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let started = ContinuousClock.now
        // Activities: a ledger record and a throttle state each (with two priority-10 sends in its window).
        var records: [ActivityRecord] = []
        var states: [(key: ActivityKey, json: Data, pending: Bool)] = []
        for i in 0..<activities {
            let key = ActivityKey("match-bench-\(i)")
            records.append(
                ActivityRecord(
                    key: key, attributesType: "MatchAttributes", phase: .active,
                    state: [
                        "homeScore": .int(i % 5), "awayScore": .int(i % 3), "clock": "44'",
                        "status": "STATUS_FIRST_HALF",
                    ],
                    lastTimestamp: 1_783_104_000))
            var state = ActivityThrottleState(attributesType: "MatchAttributes")
            state.window = SendWindow(sends: [1_783_103_000, 1_783_104_000])
            state.lastSentAt = 1_783_104_000
            states.append((key, try state.canonicalJSON(), false))
        }
        try await store.save(records)
        try await store.saveThrottleStates(states)
        // Tokens: spread over the activities (10 devices each by default).
        let perActivity = max(1, tokens / activities)
        var batch: [(activity: ActivityKey, device: String, token: String, environment: PushEnvironment)] = []
        for i in 0..<tokens {
            batch.append(
                (
                    ActivityKey("match-bench-\(i / perActivity % activities)"), "device-\(i)",
                    String(format: "%08x", i) + String(repeating: "ab", count: 76), .production
                ))
            if batch.count == 100_000 {
                try await store.importActivityTokens(batch, now: 0)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await store.importActivityTokens(batch, now: 0) }
        let setup = (ContinuousClock.now - started).seconds
        // The worker: the demo's feed and rules over that state, one cold tick.
        let demo = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: "Samples/demo/liverelay.json")))
        guard case .object(var config) = demo, case .array(var feeds) = config["feeds"],
            case .object(var feed) = feeds[0]
        else {
            throw ValidationError("the demo config changed shape")
        }
        feed["url"] = .string("file:\(root)/Samples/recordings/espn-soccer-scoreboard-1-first-half.json")
        feeds[0] = .object(feed)
        config["feeds"] = .array(feeds)
        config["rules"] = [.string("\(root)/Rules/soccer.rules.json")]
        config["state"] = "state.sqlite"
        config.removeValue(forKey: "$schema")
        try JSONValue.object(config).jsonData().write(to: dir.appendingPathComponent("liverelay.json"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["tick", "--config", dir.appendingPathComponent("liverelay.json").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let tickStart = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let tickTime = (ContinuousClock.now - tickStart).seconds
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let size =
            (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("state.sqlite").path)[.size]
            as? NSNumber)??.intValue ?? 0
        printTable(
            ["case", "state file MB", "setup s", "tick s", "peak RSS MB (tick)"],
            [
                [
                    "\(tokens) tokens, \(activities) live activities", String(format: "%.0f", Double(size) / 1_048_576),
                    String(format: "%.1f", setup), String(format: "%.2f", tickTime),
                    String(format: "%.0f", Double(usage.ru_maxrss) / 1024),
                ]
            ])
        guard process.terminationStatus == 0 else {
            throw ValidationError("liverelay tick exited \(process.terminationStatus)")
        }
    }
}
