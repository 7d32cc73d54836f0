import Foundation
import HTTP
import Hummingbird
import LiveRelayCore
import LiveRelayTesting
import Store
import Throttling
import Worker

/// The token API on a loopback port in this process, over a real SQLite store, asked with the libcurl
/// transport: what an app backend sees, with the store open to read what was kept. Every log line of the
/// server is captured, so a test can check that no address was logged.
struct APITestServer {
    static let bearer = "test-bearer-7f3a9c"

    let store: SQLiteStore
    let port: Int
    let transport: CurlTransport
    let logs: CapturingLogHandler.Store

    /// Starts the API, runs `body`, stops the API and removes the state.
    static func with(_ body: (APITestServer) async throws -> Void) async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
        let queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
        let tokens = TokenAPI(
            store: store, queue: queue, feeds: ["espn-worldcup"], bearerToken: Secret(bearer), maxBodyBytes: 16384,
            now: { 1_000 })
        let logs = CapturingLogHandler.Store()
        let router = APIServer.tokenRouter(tokens, logger: CapturingLogHandler.logger(logs, label: "api"))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: CapturingLogHandler.logger(logs, label: "api"))
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            try await body(APITestServer(store: store, port: port, transport: transport, logs: logs))
            group.cancelAll()
        }
    }

    /// One request; the answer's status and body.
    /// The API's client, with the bearer token.
    var client: APIClient { APIClient(port: port, bearer: Self.bearer, transport: transport) }
}
