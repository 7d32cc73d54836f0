import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker

/// `liverelay run` makes timer passes on its own loop, every `timer-interval` seconds of its clock: a match
/// started by the first poll is ended by a timer rule 60 s after its start, though the feed's body never
/// changes.
@Suite struct RunTimerTests {
    static let rules = #"""
        {"rules": [
          {"id": "open", "feed": "espn-worldcup",
           "when": {"and": [{"==": [{"var": "entity.id"}, "760499"]}, {"==": [{"var": "activity.phase"}, "none"]}]},
           "activity": {"key": {"cat": ["m-", {"var": "entity.id"}]}, "attributes-type": "Match",
                        "attributes": {"home": {"var": "curr.home.name"}}},
           "event": "start", "content-state": {"home": {"var": "curr.home.score"}},
           "alert": {"title": "Under way", "body": {"var": "curr.home.name"}}},
          {"id": "later", "feed": "espn-worldcup", "on": {"every": 60}, "event": "end", "priority": "low",
           "activity": {"key": {"cat": ["m-", {"var": "entity.id"}]}, "attributes-type": "Match"}}
        ]}
        """#

    @Test func theRunLoopEndsTheMatchSixtySecondsAfterItsStart() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rulesPath = directory.appendingPathComponent("timer.rules.json").path
        try Self.rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        var config = try DemoConfig()
        config["rules"] = [.string(rulesPath)]
        config["contracts"] = []
        config["timer-interval"] = 15
        try await InProcessRun.run(configPath: try config.write(to: directory)) { run in
            func phase() async throws -> ActivityPhase? {
                try await run.store.activities(["m-760499"])["m-760499"]?.phase
            }
            let started = try await phase()
            #expect(started == .pending || started == .active, "the first poll started the match")
            await run.advance(by: .seconds(45))
            let early = try await phase()
            #expect(early != .ended, "45 s after the start: not yet")
            await run.advance(by: .seconds(15))
            await run.advance(by: .seconds(15))
            let late = try await phase()
            #expect(late == .ended, "a pass after 60 s ended it")
        }
    }
}
