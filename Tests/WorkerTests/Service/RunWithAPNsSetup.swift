import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import WorkerTesting

/// `liverelay run` (the real binary) against the fake APNs, fed by the loopback feed server serving the
/// recorded match one moment at a time (the test moves it on), and the API on a free port with a bearer
/// token.
struct RunWithAPNs {
    static let bearer = "test-bearer-7c1d2f"
    let setup: MatchReplay
    let fake: FakeAPNs
    let process: BackgroundProcess
    let port: Int
    let transport: CurlTransport
    let feed: FeedServer

    /// The bodies of the recorded match, in order.
    static let steps = [
        "sequences/espn-aus-egy/01-pre-match.json", "sequences/espn-aus-egy/02-kick-off.json",
        "sequences/espn-aus-egy/03-twenty-minutes.json", "recordings/espn-soccer-scoreboard-1-first-half.json",
        "sequences/espn-aus-egy/05-half-time.json", "sequences/espn-aus-egy/06-equaliser.json",
        "recordings/espn-soccer-scoreboard-2-extra-time.json", "recordings/espn-soccer-scoreboard-3-final-pens.json",
    ]

    /// Starts the feed server on the match's first moment.
    static func feedServer() async throws -> FeedServer {
        try await FeedServer.start(
            bodies: try steps.map { try Data(contentsOf: Repository.url("Samples/" + $0)) }, manual: true)
    }

    /// Rewrites the config for `run` (the feed server, one-second interval, API).
    static func prepare(_ setup: MatchReplay, feed server: FeedServer) throws {
        guard case .object(var config) = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: setup.configPath))),
            case .array(var feeds) = config["feeds"], case .object(var feed) = feeds[0]
        else { throw CancellationError() }
        feed["url"] = .string(server.url)
        feed["interval"] = 1
        feeds[0] = .object(feed)
        config["feeds"] = .array(feeds)
        config["api"] = ["port": 0, "bearer-token": ["env": "LIVERELAY_TEST_BEARER"]]
        try JSONValue.object(config).jsonData().write(to: URL(fileURLWithPath: setup.configPath))
    }

    static func start(_ setup: MatchReplay, fake: FakeAPNs, feed: FeedServer, arguments: [String] = []) async throws
        -> RunWithAPNs
    {
        var environment = ProcessInfo.processInfo.environment
        environment["LIVERELAY_TEST_BEARER"] = bearer
        let process = try BackgroundProcess(
            Repository.executable("liverelay"),
            ["run", "--config", setup.configPath, "--log-level", "info"] + arguments, environment: environment)
        guard await process.waitForError(containing: "API listening on http://127.0.0.1:"),
            let port = process.standardError.firstMatch(of: /API listening on http:\/\/127\.0\.0\.1:(\d+)/).flatMap({
                Int($0.1)
            })
        else { throw CancellationError() }
        return RunWithAPNs(
            setup: setup, fake: fake, process: process, port: port, transport: try CurlTransport(), feed: feed)
    }

    /// Waits until the fake has accepted `count` pushes (bounded).
    func waitForAccepted(_ count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        await fake.wait(until: { [fake] in fake.accepted.count >= count }, timeout: timeout)
    }
}
