import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import Worker

/// What an operator sets per instance and reads back: `--version`, the API's host, port and the worker's
/// name by flag or environment (a flag wins over the environment, the environment over the config), and JSON
/// log lines with millisecond UTC timestamps and an info line per activity start and delivery round.
@Suite("the command line for operators", .serialized)
struct OperatorCommandLineTests {
    let liverelay = Repository.executable("liverelay")

    @Test func versionSaysWhichBuildRuns() async throws {
        let run = try await CommandRun.run(liverelay, ["--version"])
        #expect(run.status == 0)
        #expect(run.standardOutput.trimmingCharacters(in: .newlines) == BuildInfo.description)
        #expect(BuildInfo.description.hasPrefix("liverelay \(BuildInfo.version) ("))
    }

    /// `run` on the demo config (port 8787 in the file): the environment's port is taken, the flag's wins
    /// over it, and a bad value is refused before anything starts.
    @Test func theAPIPortComesFromTheFlagThenTheEnvironmentThenTheConfig() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try DemoConfig().write(to: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["LIVERELAY_API_PORT"] = "0"
        environment["LIVERELAY_LOG_FORMAT"] = "json"
        environment["LIVERELAY_LOG_LEVEL"] = "info"
        let fromEnvironment = try BackgroundProcess(liverelay, ["run", "--config", config], environment: environment)
        #expect(await fromEnvironment.waitForError(containing: #""message":"API listening on http://127.0.0.1:"#))
        #expect(!fromEnvironment.standardError.contains("127.0.0.1:8787"), "\(fromEnvironment.standardError)")
        // The match in the recording starts: one info line for it and one for the round, as JSON objects.
        #expect(await fromEnvironment.waitForError(containing: #""message":"delivery round""#))
        fromEnvironment.signal(SIGTERM)
        #expect(await fromEnvironment.waitForExit() == 0)
        let lines = fromEnvironment.standardError.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") }, "every line is JSON: \(lines)")
        let starting = try #require(lines.first { $0.contains(#""message":"activity starting""#) })
        let object = try JSONParser.parse(Data(starting.utf8))
        #expect(object["level"] == "info")
        #expect(object["activity.key"] == "match-760499")
        guard case .string(let time)? = object["ts"] else {
            Issue.record("no ts in \(starting)")
            return
        }
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")

        environment["LIVERELAY_API_PORT"] = "not-a-port"
        let refused = try await CommandRun.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["LIVERELAY_API_PORT=not-a-port", liverelay.path, "run", "--config", config])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("LIVERELAY_API_PORT=not-a-port: not a port number"))
        let flagWins = try BackgroundProcess(
            liverelay, ["run", "--config", config, "--api-port", "0"], environment: environment)
        #expect(
            await flagWins.waitForError(containing: "API listening on http://127.0.0.1:"), "\(flagWins.standardError)")
        flagWins.signal(SIGTERM)
        #expect(await flagWins.waitForExit() == 0)
    }
}
