import ArgumentParser
import Delivery
import Feeds
import Foundation
import LiveRelayCore
import Rules
import Store
import Throttling

/// The pipeline's own latency per feed body: from the body handed to the normaliser to the APNs request
/// handed to the transport, with many rules and activities.
struct PipelineBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract:
            "Per-body latency from the normaliser to the encoded APNs request, with 1,000 rules and 10,000 activities.")

    @Option(help: "Rules on the measured feed (the 4 example rules plus conditions that do not fire).") var rules = 1000
    @Option(help: "Live activities known to the ledger and the throttle.") var activities = 10_000
    @Option(help: "Bodies processed.") var iterations = 2000
    @Option(help: "The demo config whose feed mapping is used.") var config = "Samples/demo/liverelay.json"

    func run() async throws {
        let mapping = try demoMapping()
        let normalizer = try GenericNormalizer(mapping)
        let ruleSet = try makeRules()
        let engine = RuleEngine(rules: ruleSet)
        let ledger = ActivityLedger()
        var throttle = Throttle(configuration: ThrottleConfiguration(minimumInterval: 0))
        let encoder = APNsRequestEncoder(bundleID: "com.example.scores")
        // 10,000 other activities, already live, in the ledger and the throttle.
        var records: [ActivityKey: ActivityRecord] = [:]
        for i in 0..<activities {
            let key = ActivityKey("match-other-\(i)")
            records[key] = ActivityRecord(
                key: key, attributesType: "MatchAttributes", phase: .active, state: ["homeScore": 0, "awayScore": 0],
                lastTimestamp: 0)
            throttle.setFrequentUpdates(false, for: key, attributesType: "MatchAttributes")
        }
        records["match-760499"] = ActivityRecord(
            key: "match-760499", attributesType: "MatchAttributes", phase: .active,
            state: ["homeScore": 0, "awayScore": 0, "clock": "1'"], lastTimestamp: 0)
        // Bodies: the real first-half recording with match 760499's minute and score moving on every body.
        let base = try JSONParser.parse(
            Data(contentsOf: URL(fileURLWithPath: "Samples/recordings/espn-soccer-scoreboard-1-first-half.json")))
        let bodies = (0..<8).map { minute(base, $0) }
        var previous = try normalizer.normalize(bodies[7])
        var stages: [String: [Double]] = [:]
        var totals: [Double] = []
        var pushes = 0
        let clock = ContinuousClock()
        for i in 0..<iterations {
            let body = bodies[i % bodies.count]
            let now = 1_783_104_000 + i * 60
            var t = clock.now
            func lap(_ name: String) {
                let n = clock.now
                stages[name, default: []].append((n - t).seconds)
                t = n
            }
            let start = t
            let current = try normalizer.normalize(body)
            lap("normalise (32 matches, 290 KB)")
            let changes = ChangeDetector.changes(feed: "espn-worldcup", previous: previous, current: current)
            lap("detect changes")
            var intents: [ActivityIntent] = []
            for change in changes { intents += engine.evaluate(change, now: now).intents }
            lap("rules (\(ruleSet.count))")
            for decision in ledger.apply(intents, to: &records, now: now) {
                if case .push(let pending) = decision { throttle.submit(pending, now: now) }
            }
            lap("ledger + throttle submit")
            for case .send(let push, _) in throttle.release(now: now) {
                let body = try encoder.body(for: push)
                _ = encoder.request(for: push, token: "placeholder", body: body)
                pushes += 1
            }
            lap("release + APNs encode")
            totals.append((clock.now - start).seconds)
            previous = current
        }
        var rows = stages.sorted { $0.key < $1.key }.map {
            [$0.key, ms(percentile($0.value, 0.5)), ms(percentile($0.value, 0.99))]
        }
        rows.append(["total: body → request", ms(percentile(totals, 0.5)), ms(percentile(totals, 0.99))])
        rows.append(["SQLite commit of one poll (WAL)", "", ""])
        let commit = try await sqliteCommit(records: records)
        rows[rows.count - 1] = [
            "SQLite commit of one poll (WAL, separate)", ms(percentile(commit, 0.5)), ms(percentile(commit, 0.99)),
        ]
        print("\(iterations) bodies, \(pushes) pushes, \(ruleSet.count) rules, \(records.count) activities")
        printTable(["stage", "p50 ms", "p99 ms"], rows)
    }

    private func demoMapping() throws -> GenericMapping {
        let document = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: config)))
        return try JSONValueDecoder().decode(GenericMapping.self, from: document["feeds"]!.arrayValue![0]["mapping"]!)
    }

    /// The example rules plus variants whose conditions are evaluated but never hold.
    private func makeRules() throws -> [Rule] {
        let set = RuleLoader().load(paths: ["Rules/soccer.rules.json"])
        var text = #"{"rules": ["#
        let fillers = max(0, rules - set.rules.count)
        text += (0..<fillers).map { i in
            #"{"id": "filler-\#(i)", "feed": "espn-worldcup", "when": {"and": [{"==": [{"var": "curr.state"}, "in"]}, {">": [{"var": "curr.home.score"}, \#(100 + i)]}]}, "activity": {"key": {"cat": ["match-", {"var": "entity.id"}]}, "attributes-type": "MatchAttributes"}, "event": "update", "content-state": {"homeScore": {"var": "curr.home.score"}}, "priority": "low"}"#
        }.joined(separator: ",")
        text += "]}"
        let (fill, problems) = RuleLoader().load(file: "fillers.json", data: Data(text.utf8))
        guard problems.isEmpty else { throw ValidationError("\(problems)") }
        return set.rules + fill
    }

    /// The recording with match 760499 at another minute (and, every other body, another score).
    private func minute(_ document: JSONValue, _ n: Int) -> Data {
        guard case .object(var root) = document, case .array(var events) = root["events"],
            let index = events.firstIndex(where: { $0["id"] == "760499" }), case .object(var event) = events[index],
            case .object(var status) = event["status"], case .array(var competitions) = event["competitions"],
            case .object(var competition) = competitions[0], case .array(var competitors) = competition["competitors"],
            case .object(var home) = competitors[0]
        else { fatalError("unexpected recording shape") }
        status["displayClock"] = .string("\(40 + n)'")
        status["clock"] = .int((40 + n) * 60)
        home["score"] = .string(String(n / 2))
        competitors[0] = .object(home)
        competition["competitors"] = .array(competitors)
        competitions[0] = .object(competition)
        event["competitions"] = .array(competitions)
        event["status"] = .object(status)
        events[index] = .object(event)
        root["events"] = .array(events)
        return JSONValue.object(root).jsonData()
    }

    private func sqliteCommit(records: [ActivityKey: ActivityRecord]) async throws -> [Double] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liverelay-bench-\(UUID().uuidString).sqlite"
        ).path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let store = try SQLiteStore(path: path)
        let record = records["match-760499"]!
        var facts = Facts()
        facts.set("home.score", 1)
        let clock = ContinuousClock()
        var out: [Double] = []
        for i in 0..<200 {
            let start = clock.now
            try await store.commit(
                FeedCommit(feed: "espn-worldcup", now: i, facts: ["760499": facts], activities: [record]))
            out.append((clock.now - start).seconds)
        }
        return out
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func ms(_ seconds: Double) -> String { String(format: "%.3f", seconds * 1000) }
