import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Rules
import Store
import Testing
import Worker

/// `liverelay run` and its parts.
@Suite struct ServiceTests {
    /// A copy of the demo config and rules in a temporary folder, with absolute feed paths and the API on
    /// a free port.
    static func makeSetup(interval: Int = 1) throws -> (dir: URL, config: URL) {
        let dir = try Repository.temporaryDirectory()
        try FileManager.default.copyItem(
            at: Repository.url("Rules/soccer.rules.json"), to: dir.appendingPathComponent("soccer.rules.json"))
        var config = try DemoConfig()
        try config.setFeed(
            url: Repository.url("Samples/recordings/espn-soccer-scoreboard-1-first-half.json").absoluteString,
            interval: interval)
        config["rules"] = ["soccer.rules.json"]
        config["api"] = ["port": 0]
        return (dir, URL(fileURLWithPath: try config.write(to: dir)))
    }

    @Test func aBrokenRuleEditIsRefusedAndTheRunningRulesStay() throws {
        let (dir, config) = try Self.makeSetup()
        defer { try? FileManager.default.removeItem(at: dir) }
        let loaded = try ConfigLoader.load(path: config.path)
        let rules = loaded.loadRules()
        let book = RuleBook(RuleEngine(rules: rules.rules), routes: try loaded.routes(for: rules))
        let logs = CapturingLogHandler.Store()
        let reloader = RuleReloader(loaded: loaded, book: book, logger: CapturingLogHandler.logger(logs))
        let rulesFile = dir.appendingPathComponent("soccer.rules.json")
        let good = try String(contentsOf: rulesFile, encoding: .utf8)

        try good.replacingOccurrences(of: #""priority": "low""#, with: #""prioirty": "low""#).write(
            to: rulesFile, atomically: true, encoding: .utf8)
        #expect(!reloader.reload(reason: "test"))
        #expect(book.generation == 1)
        #expect(book.engine.rules.count == 4)
        #expect(
            logs.all.contains {
                $0.contains("rule reload refused") && $0.contains("soccer.rules.json:")
                    && $0.contains("unknown key \"prioirty\"")
            })

        try good.replacingOccurrences(of: #""relevance-score": 20"#, with: #""relevance-score": 30"#).write(
            to: rulesFile, atomically: true, encoding: .utf8)
        #expect(reloader.reload(reason: "test"))
        #expect(book.generation == 2)
    }

    @Test func runServesHealthAndMetricsAndExitsZeroOnSIGTERMWithStateSaved() async throws {
        let (dir, config) = try Self.makeSetup()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try BackgroundProcess(
            Repository.executable("liverelay"), ["run", "--config", config.path, "--log-level", "info"])
        #expect(await run.waitForError(containing: "API listening on http://127.0.0.1:"))
        let port = try #require(
            run.standardError.firstMatch(of: /API listening on http:\/\/127\.0\.0\.1:(\d+)/).map { String($0.1) })
        // The first poll starts the live match; wait for its push on the console.
        #expect(await run.waitForOutput(containing: #""event":"start""#))
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let health = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(port)/healthz"))
        #expect(health.status == 200)
        let healthJSON = try JSONParser.parse(health.body)
        #expect(healthJSON["status"] == "ok")
        #expect(healthJSON["feeds"]?["espn-worldcup"]?["ok"] == true)
        let metrics = String(
            decoding: try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(port)/metrics")).body, as: UTF8.self
        )
        #expect(metrics.contains(#"liverelay_polls_total{feed="espn-worldcup"}"#))
        #expect(metrics.contains(#"liverelay_pushes_total{provider="console",priority="10",outcome="delivered"} 1"#))
        #expect(metrics.contains(#"liverelay_rule_fires_total{rule="kick-off"} 1"#))
        run.signal(SIGTERM)
        #expect(await run.waitForExit() == 0)
        let store = try SQLiteStore(path: dir.appendingPathComponent("liverelay.sqlite").path)
        #expect(try await store.allActivities().map(\.key) == ["match-760499"])
    }
}
