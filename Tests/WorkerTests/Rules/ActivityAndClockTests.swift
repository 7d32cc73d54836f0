import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import Worker
import WorkerTesting

/// Rules that read the activity and rules on the clock, through the real pipeline in `replay`: a Binance
/// price feed (one symbol, BTCUSDT) whose bodies and rules each test writes.
@Suite struct ActivityAndClockTests {
    /// One replay: the rules, the prices at their times (seconds after `start`), and how long the clock runs on.
    struct Bed {
        static let start = 1_790_000_000
        var rules: String
        var prices: [(at: Int, price: String)]
        var until: Int?
        /// The feed's bodies when they are not Binance prices, and its config entry.
        var bodies: [(at: Int, body: String)] = []
        var feed =
            #"{"id": "prices", "url": "file:0.json", "preset": {"name": "binance", "symbols": ["BTCUSDT"]}}"#
        /// What the provider answers each push.
        var answer: @Sendable (LiveActivityPush, PushTarget) -> DeliveryOutcome = { _, _ in .delivered }

        /// Replays and returns the pushes the provider got and what the replay printed.
        func replay() async throws -> (pushes: [LiveActivityPush], output: String) {
            let directory = try Repository.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            func write(_ name: String, _ text: String) throws {
                try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            try write("alerts.rules.json", rules)
            try write(
                "liverelay.json",
                #"""
                {"state": "state.sqlite", "rules": ["alerts.rules.json"],
                 "provider": {"type": "console", "bundle-id": "com.example.prices"},
                 "feeds": [\#(feed)]}
                """#)
            var steps: [String] = []
            var bodies = self.bodies
            for (at, price) in prices {
                bodies.append((at, #"[{"symbol": "BTCUSDT", "price": "\#(price)"}]"#))
            }
            for (i, step) in bodies.enumerated() {
                try write("\(i).json", step.1)
                steps.append(#"{"at": "\#(ISO8601Time.string(Self.start + step.0))", "body": "\#(i).json"}"#)
            }
            let until = self.until.map { #", "until": "\#(ISO8601Time.string(Self.start + $0))""# } ?? ""
            try write("sequence.json", #"{"feed": "prices", "steps": [\#(steps.joined(separator: ","))]\#(until)}"#)
            let output = ReplayTests.Output()
            let recorder = RecordingProvider(answer: answer)
            _ = try await SequenceReplay.run(
                config: directory.appendingPathComponent("liverelay.json").path,
                sequence: directory.appendingPathComponent("sequence.json").path, provider: recorder,
                output: { output.write($0) })
            return (recorder.pushes, output.text)
        }
    }

    /// The price-alert trio: start on crossing 100,000 (never on first sight), update when the price moved
    /// ≥ 0.5 % since the last push (a slow drift of small steps counts), end after 30 calm minutes.
    static let priceAlert = #"""
        {"rules": [
          {"id": "cross", "feed": "prices",
           "when": {"and": [{"==": [{"var": "activity.phase"}, "none"]}, {"!==": [{"var": "prev"}, null]},
                            {"<": [{"var": "prev.price"}, 100000]}, {">=": [{"var": "curr.price"}, 100000]}]},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert",
                        "attributes": {"symbol": {"var": "entity.id"}}},
           "event": "start", "content-state": {"price": {"var": "curr.price"}},
           "alert": {"title": {"cat": [{"var": "entity.id"}, " crossed 100,000"]},
                     "body": {"cat": ["Now ", {"format": [{"var": "curr.price"}, 2]}]}}},
          {"id": "moved", "feed": "prices",
           "when": {"and": [{"in": [{"var": "activity.phase"}, ["pending", "active"]]},
                            {">=": [{"/": [{"-": [{"var": "curr.price"}, {"var": "activity.state.price"}]},
                                           {"var": "activity.state.price"}]}, 0.005]}]},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "event": "update", "priority": "low", "content-state": {"price": {"var": "curr.price"}}},
          {"id": "calm", "feed": "prices", "on": {"every": 60},
           "when": {">=": [{"-": [{"var": "now"}, {"var": "activity.pushed-at"}]}, 1800]},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "event": "end", "dismissal-after": 0}
        ]}
        """#

    @Test func thePriceAlertTrio() async throws {
        let (pushes, output) = try await Bed(
            rules: Self.priceAlert,
            prices: [
                (0, "100150"),  // first sight above the line: no start
                (60, "99900"), (120, "100100"),  // crosses: start at 100,100
                (180, "100300"), (240, "100550"), (300, "100604"),  // +0.2 %, +0.45 %, +0.50 %: update at the third
                (360, "100700"),  // +0.1 % since that push: nothing
            ], until: 300 + 1800 + 120
        ).replay()
        #expect(pushes.map(\.event) == [.start, .update, .end], "\(output)")
        #expect(pushes.map { $0.contentState["price"] } == [.decimal(100100), .decimal(100604), .decimal(100604)])
        #expect(pushes.first?.alert?.body == "Now 100,100.00")
        // The end comes at the first look 30 minutes after the last push (the looks are every 60 s from the start).
        #expect(pushes.last.map { $0.timestamp - (Bed.start + 300) } == 1800)
        #expect(output.contains("timer calm (every 60 s): rules calm fired"))
    }

    /// A match that starts on its first poll and ends 3 hours after its start.
    static let threeHours = #"""
        {"rules": [
          {"id": "start", "feed": "prices", "when": {"==": [{"var": "activity.phase"}, "none"]},
           "activity": {"key": "match", "attributes-type": "Match", "attributes": {}}, "event": "start",
           "content-state": {"price": {"var": "curr.price"}}, "alert": {"title": "Kick-off", "body": ""}},
          {"id": "over", "feed": "prices", "on": {"every": 300},
           "when": {">=": [{"-": [{"var": "now"}, {"var": "activity.started-at"}]}, 10800]},
           "activity": {"key": "match", "attributes-type": "Match"}, "event": "end"}
        ]}
        """#

    /// Starts the activity `card` on the first poll, with the price.
    static let startCard = #"""
        {"id": "start", "feed": "prices", "when": {"==": [{"var": "activity.phase"}, "none"]},
         "activity": {"key": "card", "attributes-type": "Card", "attributes": {}}, "event": "start",
         "content-state": {"price": {"var": "curr.price"}}, "alert": {"title": "Following", "body": ""}}
        """#

    /// A match's activity ends 3 hours after its start, even when the feed never says it is over.
    @Test func threeHoursAfterTheStartItEnds() async throws {
        let (pushes, output) = try await Bed(rules: Self.threeHours, prices: [(0, "1"), (600, "2")], until: 4 * 3600)
            .replay()
        #expect(pushes.map(\.event) == [.start, .end], "\(output)")
        #expect(pushes.last.map { $0.timestamp - Bed.start } == 10800)
    }

    /// Every 10 minutes a low-priority refresh renews the stale date, though nothing changed.
    @Test func everyTenMinutesALowPriorityRefresh() async throws {
        let rules = #"""
            {"rules": [
              \#(Self.startCard),
              {"id": "refresh", "feed": "prices", "on": {"every": 600}, "priority": "low", "stale-after": 900,
               "activity": {"key": "card", "attributes-type": "Card"}, "event": "update"}
            ]}
            """#
        let (pushes, output) = try await Bed(rules: rules, prices: [(0, "5")], until: 1900).replay()
        #expect(pushes.map(\.event) == [.start, .update, .update, .update], "\(output)")
        #expect(pushes.dropFirst().map { $0.timestamp - Bed.start } == [600, 1200, 1800])
        #expect(pushes.dropFirst().allSatisfy { $0.priority == .low && $0.staleDate == $0.timestamp + 900 })
    }

    /// A quiet rule looks once per quiet spell: the price stands still for 30 minutes, the activity ends.
    @Test func aQuietEntityEndsItsActivityOnce() async throws {
        let rules = #"""
            {"rules": [
              \#(Self.startCard),
              {"id": "note-quiet", "feed": "prices", "on": {"quiet": 1800}, "priority": "low",
               "activity": {"key": "card", "attributes-type": "Card"}, "event": "update",
               "content-state": {"quiet-since": {"var": "entity.changed-at"}}}
            ]}
            """#
        // Changes at 0 and 600, then still until 3600: one look at 2400, none after (same spell).
        let (pushes, output) = try await Bed(rules: rules, prices: [(0, "5"), (600, "6")], until: 3600).replay()
        #expect(pushes.map(\.event) == [.start, .update], "\(output)")
        #expect(pushes.last.map { $0.timestamp - Bed.start } == 2400)
        #expect(pushes.last?.contentState["quiet-since"] == .int(Bed.start + 600))
    }

    /// "Calm for 30 minutes" beside a refresh every 10 minutes: the refresh renews `activity.pushed-at`, so
    /// a rule on it never fires; `activity.changed-at` is the last push that changed the state.
    @Test func aRefreshDoesNotHideCalm() async throws {
        func rules(_ since: String) -> String {
            #"""
            {"rules": [
              \#(Self.startCard),
              {"id": "moved", "feed": "prices", "when": {"!=": [{"var": "activity.phase"}, "none"]},
               "activity": {"key": "card", "attributes-type": "Card"}, "event": "update", "priority": "low",
               "content-state": {"price": {"var": "curr.price"}}},
              {"id": "refresh", "feed": "prices", "on": {"every": 600}, "priority": "low", "stale-after": 900,
               "activity": {"key": "card", "attributes-type": "Card"}, "event": "update"},
              {"id": "calm", "feed": "prices", "on": {"every": 60},
               "when": {">=": [{"-": [{"var": "now"}, {"var": "activity.\#(since)"}]}, 1800]},
               "activity": {"key": "card", "attributes-type": "Card"}, "event": "end", "dismissal-after": 0}
            ]}
            """#
        }
        let prices = [(0, "5"), (300, "6")]
        let (pushes, output) = try await Bed(rules: rules("changed-at"), prices: prices, until: 3000).replay()
        #expect(pushes.map(\.event) == [.start, .update, .update, .update, .update, .end], "\(output)")
        #expect(pushes.map { $0.timestamp - Bed.start } == [0, 300, 600, 1200, 1800, 2100], "30 min after 300")
        let (renewed, _) = try await Bed(rules: rules("pushed-at"), prices: prices, until: 3000).replay()
        #expect(!renewed.contains { $0.event == .end }, "the refresh renews pushed-at: calm never comes")
    }

    /// A quiet rule that names facts: a volume that changes every 10 minutes does not end the price's quiet
    /// spell; the price standing still for 30 minutes does.
    @Test func quietOverNamedFactsIgnoresTheOthers() async throws {
        var bed = Bed(
            rules: #"""
                {"rules": [
                  \#(Self.startCard),
                  {"id": "still", "feed": "prices", "on": {"quiet": 1800, "facts": ["price"]},
                   "activity": {"key": "card", "attributes-type": "Card"}, "event": "end"}
                ]}
                """#, prices: [], until: 4000)
        bed.feed = #"""
            {"id": "prices", "url": "file:0.json", "mapping": {"entity": "", "entity-id": "BTC",
             "fields": {"price": {"pointer": "/price", "type": "decimal"}, "volume": {"pointer": "/volume", "type": "int"}}}}
            """#
        bed.bodies = [0, 600, 1200, 1800, 2400, 3000, 3600].map { at in
            (at, #"{"price": "\#(at < 900 ? 5 : 6)", "volume": \#(at)}"#)
        }
        let (pushes, output) = try await bed.replay()
        #expect(pushes.map(\.event) == [.start, .end], "\(output)")
        #expect(pushes.last.map { $0.timestamp - Bed.start } == 1200 + 1800, "the price last changed at 1200")
    }

    /// `activity.state` holds a push still on its way (or refused); `activity.delivered-state` the newest that
    /// got through.
    @Test func theDeliveredStateIsTheLastPushThatGotThrough() async throws {
        var bed = Bed(
            rules: #"""
                {"rules": [
                  \#(Self.startCard),
                  {"id": "moved", "feed": "prices", "when": {"!=": [{"var": "activity.phase"}, "none"]},
                   "activity": {"key": "card", "attributes-type": "Card"}, "event": "update",
                   "content-state": {"price": {"var": "curr.price"},
                                     "pushed": {"var": "activity.state.price"},
                                     "delivered": {"var": "activity.delivered-state.price"}}}
                ]}
                """#, prices: [(0, "5"), (60, "6"), (120, "7")])
        bed.answer = { push, _ in
            push.contentState["price"] == .decimal(6) ? .rejected(reason: "refused for the test") : .delivered
        }
        let (pushes, output) = try await bed.replay()
        #expect(pushes.map(\.event) == [.start, .update, .update], "\(output)")
        #expect(pushes[1].contentState["delivered"] == .decimal(5))
        #expect(pushes[2].contentState["pushed"] == .decimal(6), "the state decided")
        #expect(pushes[2].contentState["delivered"] == .decimal(5), "the refused push never got through")
    }

    /// `tick` (cron) makes a timer pass too: the tick three hours after the start ends the match, though the
    /// feed's body never changed.
    @Test func aCronTickEndsTheMatchThreeHoursAfterItsStart() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.threeHours.write(
            to: directory.appendingPathComponent("r.rules.json"), atomically: true, encoding: .utf8)
        try #"[{"symbol": "BTCUSDT", "price": "1"}]"#.write(
            to: directory.appendingPathComponent("0.json"), atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("liverelay.json")
        try #"""
        {"state": "state.sqlite", "rules": ["r.rules.json"],
         "provider": {"type": "console", "bundle-id": "com.example.prices"},
         "feeds": [{"id": "prices", "url": "file:0.json", "preset": {"name": "binance", "symbols": ["BTCUSDT"]}}]}
        """#.write(to: config, atomically: true, encoding: .utf8)
        let liverelay = Repository.executable("liverelay")
        func tick(_ at: Int) async throws -> CommandRun {
            try await CommandRun.run(
                liverelay, ["tick", "--config", config.path, "--now", ISO8601Time.string(Bed.start + at)])
        }
        let first = try await tick(0)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains(#""event":"start""#))
        // The start delivered after the first tick's pass made the activity active, so the next tick looks
        // at it once more (a rule may read the phase); that look fires nothing and puts the next at 3 h.
        let early = try await tick(3 * 3600 - 120)
        #expect(early.standardOutput == "", "not yet: \(early.standardError)")
        #expect(early.standardError.contains("timers: 1 activities due, 0 pushes queued"), "\(early.standardError)")
        let later = try await tick(3 * 3600 - 60)
        #expect(later.standardOutput == "", "not yet: \(later.standardError)")
        #expect(
            !later.standardError.contains("timers:"),
            "the look put the rule's next look at 3 h, the first due time its condition holds at")
        let late = try await tick(3 * 3600 + 30)
        #expect(late.status == 0, "\(late.standardError)")
        #expect(late.standardOutput.contains(#""event":"end""#), "\(late.standardError)")
        #expect(late.standardError.contains("timers: 1 activities due, 1 pushes queued"))
    }

    /// `activity` as rules see it: the phase, the state and facts at the last push, the times, the budget.
    @Test func whatARuleSeesOfTheActivity() async throws {
        let rules = #"""
            {"rules": [
              {"id": "start", "feed": "prices", "when": {"==": [{"var": "activity.phase"}, "none"]},
               "activity": {"key": "card", "attributes-type": "Card", "attributes": {}}, "event": "start",
               "content-state": {"price": {"var": "curr.price"}, "seen": {"var": "activity"}},
               "alert": {"title": "Following", "body": ""}},
              {"id": "echo", "feed": "prices", "when": {"!=": [{"var": "activity.phase"}, "none"]},
               "activity": {"key": "card", "attributes-type": "Card"}, "event": "update",
               "content-state": {"price": {"var": "curr.price"}, "seen": {"var": "activity"}}}
            ]}
            """#
        let (pushes, output) = try await Bed(rules: rules, prices: [(0, "5"), (60, "6")]).replay()
        #expect(pushes.map(\.event) == [.start, .update], "\(output)")
        #expect(pushes[0].contentState["seen"]?["phase"] == "none")
        #expect(pushes[0].contentState["seen"]?["state"] == .emptyObject)
        #expect(pushes[0].contentState["seen"]?["budget"]?["used"] == 0)
        let seen = pushes[1].contentState["seen"]
        #expect(seen?["phase"] == "active")
        #expect(seen?["state"]?["price"] == .decimal(5))
        #expect(seen?["facts"]?["price"] == .decimal(5))
        #expect(seen?["started-at"] == .int(Bed.start))
        #expect(seen?["pushed-at"] == .int(Bed.start))
        #expect(seen?["sent-at"] == .int(Bed.start))
        #expect(seen?["changed-at"] == .int(Bed.start))
        #expect(seen?["delivered-state"]?["price"] == .decimal(5))
        #expect(seen?["budget"]?["used"] == 0, "a start does not spend the priority-10 budget")
        #expect(seen?["budget"]?["held"] == false)
    }
}
