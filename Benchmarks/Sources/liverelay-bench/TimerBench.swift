import ArgumentParser
import Delivery
import Foundation
import LiveRelayCore
import Logging
import Rules
import Store
import Throttling
import Worker

/// One timer pass over many live activities: which timer rules are due (pure, in memory), reading the live
/// activities from SQLite, and the whole pass through the pipeline (read, decide, evaluate what is due, save
/// the looks and queue the pushes), at the rhythm `run` makes passes.
struct TimerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timers",
        abstract:
            "One timer pass over 100,000 live activities with three timer rules (every 60 s, every 600 s, quiet 30 min)."
    )

    @Option(help: "Live activities.") var activities = 100_000
    @Option(help: "Passes measured, one every `interval` seconds of simulated time.") var passes = 8
    @Option(help: "Seconds between two passes (the config's timer-interval).") var interval = 1
    @Option(help: "Live activities a pass takes per transaction.") var batch = 2_000
    @Option(help: "Seconds of history kept for the live report (api.report-window); 0 keeps none.")
    var reportWindow = 0
    @Flag(help: "PriceAlert's content-state under a contract, as a config with `contracts` has it.")
    var contract = false

    static let rules = #"""
        {"rules": [
          {"id": "calm", "feed": "prices", "on": {"every": 60},
           "when": {">=": [{"-": [{"var": "now"}, {"var": "activity.pushed-at"}]}, 1800]},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "event": "end"},
          {"id": "refresh", "feed": "prices", "on": {"every": 600}, "priority": "low", "stale-after": 900,
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "event": "update"},
          {"id": "asleep", "feed": "prices", "on": {"quiet": 1800},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "event": "end"}
        ]}
        """#

    /// The contract `--contract` puts PriceAlert's content-state under.
    static let contractText = #"""
        {"attributes-type": "PriceAlert", "date-encoding": "seconds-since-2001",
         "content-state": {"type": "object", "required": ["price"], "properties": {"price": {"type": "number"}}}}
        """#

    func run() async throws {
        let dir = try benchDirectory("timers")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (rules, diagnostics) = RuleLoader().load(file: "timers.rules.json", data: Data(Self.rules.utf8))
        guard diagnostics.isEmpty else { throw ValidationError("\(diagnostics)") }
        let engine = RuleEngine(rules: rules)
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let base = 1_790_000_000
        // Activities started over the last hour, each with its last push within the last 10 minutes and its
        // entity last changed within the last 15 minutes: most looks fire nothing, as in a live night.
        var byChange: [Int: [String: Facts]] = [:]
        var records: [ActivityRecord] = []
        for i in 0..<activities {
            let id = "S\(i)"
            let started = base - (i &* 37) % 3600
            // In step: each every-rule last looked at its latest due time (as after an earlier pass).
            let looks = [
                "calm": started + (base - started) / 60 * 60, "refresh": started + (base - started) / 600 * 600,
            ]
            let facts = Facts(["price": .int(i)])
            byChange[base - (i % 9) * 100, default: [:]][id] = facts
            records.append(
                ActivityRecord(
                    key: ActivityKey("alert-" + id), attributesType: "PriceAlert", phase: .active,
                    state: ["price": .int(i)], lastTimestamp: max(started, base - (i % 600)),
                    entity: EntityKey(feed: "prices", id: id), startedAt: started, facts: facts.value,
                    timers: looks.filter { $0.value > started }))
        }
        let setup = ContinuousClock.now
        for (at, facts) in byChange.sorted(by: { $0.key < $1.key }) {
            try await store.commit(FeedCommit(feed: "prices", now: at, facts: facts))
        }
        try await store.commit(FeedCommit(feed: "prices", now: base, facts: nil, activities: records))
        let setupSeconds = (ContinuousClock.now - setup).seconds

        // Pure: the due decisions for every live activity, in memory.
        let subjects = try await store.timerSubjects(attributesTypes: ["PriceAlert"])
        var decide: [Double] = []
        var dueCount = 0
        for k in 0..<passes {
            let start = ContinuousClock.now
            dueCount = subjects.reduce(0) { $0 + (engine.look(at: $1, now: base + 1 + k * interval).isDue ? 1 : 0) }
            decide.append((ContinuousClock.now - start).seconds)
        }
        var read: [Double] = []
        for _ in 0..<passes {
            let start = ContinuousClock.now
            _ = try await store.timerSubjects(attributesTypes: ["PriceAlert"])
            read.append((ContinuousClock.now - start).seconds)
        }

        // The whole pass, every `interval` seconds of simulated time.
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
        var contracts: [String: ContentContract] = [:]
        if contract {
            let path = dir.appendingPathComponent("PriceAlert.contract.json").path
            try Data(Self.contractText.utf8).write(to: URL(fileURLWithPath: path))
            switch ContractLoader.load(path: path, resolvedPath: path) {
            case .success(let loaded): contracts["PriceAlert"] = loaded
            case .failure(let diagnostics): throw ValidationError("\(diagnostics)")
            }
        }
        let pipeline = Pipeline(
            store: store, rules: RuleBook(engine, routes: ProviderRoutes(defaultProvider: "none")), queue: queue,
            senders: [:], logger: logger, contracts: contracts,
            history: reportWindow > 0 ? HistoryRecorder(window: reportWindow) : nil)
        // The first pass reads every live activity (as after a start or a change of the timer rules); the
        // next read only those whose due time came.
        var whole: [Double] = []
        var looked: [Int] = []
        var pushed: [Int] = []
        for k in 0...passes {
            let start = ContinuousClock.now
            let pass = try await pipeline.timers(now: base + 1 + k * interval, batch: batch)
            whole.append((ContinuousClock.now - start).seconds)
            looked.append(pass.read)
            pushed.append(pass.pushes.count)
        }
        let steady = Array(whole.dropFirst())
        print(
            "\(activities) live activities, 3 timer rules; setup \(String(format: "%.1f", setupSeconds)) s; passes every \(interval) s, \(batch) activities per transaction, \(reportWindow > 0 ? "history kept for \(reportWindow) s" : "no history kept")"
        )
        printTable(
            ["case", "activities looked at", "pushes", "median ms", "max ms"],
            [
                [
                    "look at each: due rules, light conditions, next due time (in memory)",
                    "\(subjects.count) (\(dueCount) due)", "-",
                    ms(percentile(decide, 0.5)), ms(decide.max()!),
                ],
                [
                    "read live activities (SQLite)", "\(subjects.count) read", "-", ms(percentile(read, 0.5)),
                    ms(read.max()!),
                ],
                [
                    "first pass: every live activity read", "\(looked[0])", "\(pushed[0])", ms(whole[0]), ms(whole[0]),
                ],
                [
                    "next passes, every \(interval) s: the due ones read",
                    "\(looked.dropFirst().min()!)–\(looked.dropFirst().max()!) per pass",
                    "\(pushed.dropFirst().min()!)–\(pushed.dropFirst().max()!)", ms(percentile(steady, 0.5)),
                    ms(steady.max()!),
                ],
            ])
    }
}
