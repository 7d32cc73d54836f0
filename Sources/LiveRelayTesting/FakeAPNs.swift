public import Crypto
public import Foundation
import Synchronization

/// A loopback APNs for tests: HTTP/2 over TLS (certificate from a ``TestCertificateAuthority``) on
/// `127.0.0.1` and an ephemeral port, as strict as Apple.
///
/// It checks each request the way APNs does (see ``FakeAPNsRequestCheck`` and the provider-token rules in
/// `FakeAPNsProviderTokens`), answers with Apple's status codes and `{"reason": …}` bodies (410 with a
/// `timestamp`), echoes `apns-id`, and records every accepted push. Tests script failures: tokens answered
/// with 410, and a queue of faults (a status such as 429 or 503, a dropped connection, a slow answer) taken
/// one per request.
public final class FakeAPNs: Sendable {
    /// Who the fake APNs believes the client is.
    public struct Configuration: Sendable {
        /// The key id the provider token's `kid` must name.
        public var keyID: String
        /// The team id the provider token's `iss` must name.
        public var teamID: String
        /// The public half of the team's signing key.
        public var publicKey: P256.Signing.PublicKey
        /// The app's bundle id; the topic must be `<bundle id>.push-type.liveactivity`.
        public var bundleID: String
        /// The HTTP/2 stream limit the server announces (APNs: 1000 at most; NIO's default 100 when `nil`).
        public var maxConcurrentStreams: Int?
        /// The fake's wall clock in UNIX seconds, for `iat` checks; tests simulate it.
        public var now: @Sendable () -> Int

        /// Creates a configuration.
        public init(
            keyID: String, teamID: String, publicKey: P256.Signing.PublicKey, bundleID: String,
            maxConcurrentStreams: Int? = nil, now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
        ) {
            self.keyID = keyID
            self.teamID = teamID
            self.publicKey = publicKey
            self.bundleID = bundleID
            self.maxConcurrentStreams = maxConcurrentStreams
            self.now = now
        }
    }

    /// A scripted misbehaviour for the next request.
    public enum Fault: Sendable, Hashable {
        /// Answer with this status and reason (`429 TooManyRequests`, `503 ServiceUnavailable`, …), with an
        /// optional `retry-after` header.
        case status(Int, reason: String, retryAfter: Int? = nil)
        /// Close the connection without answering.
        case dropConnection
        /// Wait this long, then handle the request normally.
        case delay(Duration)
    }

    private struct State {
        var tokens: FakeAPNsProviderTokens
        var faults: [Fault] = []
        var outage: Fault?
        var unregistered: [String: String] = [:]
        var accepted: [FakeAPNsPush] = []
        var rejections: [FakeAPNsRejection] = []
        var inFlight = 0
        var maxInFlight = 0
        var responseDelay: Duration?
        var channels = FakeAPNsChannels()
    }

    /// The configuration the fake was started with.
    public let configuration: Configuration
    private let server: LoopbackHTTPServer
    private let state: Mutex<State>

    private init(configuration: Configuration, server: LoopbackHTTPServer, tokens: FakeAPNsProviderTokens) {
        self.configuration = configuration
        self.server = server
        self.state = Mutex(State(tokens: tokens))
    }

    /// Starts the fake on `127.0.0.1` with the authority's certificate.
    public static func start(authority: TestCertificateAuthority, configuration: Configuration) async throws -> FakeAPNs
    {
        let box = Box()
        let server = try await LoopbackHTTPServer.start(
            mode: .http2TLS(authority), maxConcurrentStreams: configuration.maxConcurrentStreams
        ) { request in
            await box.fake?.handle(request) ?? .text("starting", status: 503)
        }
        let tokens = FakeAPNsProviderTokens(
            keyID: configuration.keyID, teamID: configuration.teamID, publicKey: configuration.publicKey)
        let fake = FakeAPNs(configuration: configuration, server: server, tokens: tokens)
        box.fake = fake
        return fake
    }

    /// Stops listening and closes every connection.
    public func stop() async throws { try await server.stop() }

    /// `https://127.0.0.1:<port>`: the endpoint to configure.
    public var url: String { server.baseURL }

    /// Every push accepted so far, in the order they were accepted.
    public var accepted: [FakeAPNsPush] { state.withLock { $0.accepted } }
    /// Every request refused so far.
    public var rejections: [FakeAPNsRejection] { state.withLock { $0.rejections } }
    /// Every request received, accepted or not.
    public var requestCount: Int { server.requests.count }

    /// Waits until `condition` holds, looking again at each request the fake receives and answers; false
    /// after `timeout`.
    public func wait(until condition: @Sendable () -> Bool, timeout: Duration = .seconds(30)) async -> Bool {
        await changes.wait(until: condition, timeout: timeout)
    }
    private let changes = ChangeSignal()
    /// The distinct provider tokens accepted, with their `iat`, in order.
    public var providerTokens: [(token: String, issuedAt: Int)] { state.withLock { $0.tokens.accepted } }
    /// The most requests the fake was answering at once.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    /// TCP connections accepted so far.
    public var connectionCount: Int { server.connectionCount }

    /// Answers pushes to `token` with 410 and this reason (`Unregistered` or `ExpiredToken`) from now on.
    public func unregister(_ token: String, reason: String = "Unregistered") {
        state.withLock { $0.unregistered[token.lowercased()] = reason }
    }

    /// Queues faults; each request takes the first one left.
    public func script(_ faults: [Fault]) { state.withLock { $0.faults += faults } }

    /// Answers every request with `fault` (when no scripted one is left) until called with `nil`: an outage.
    public func setOutage(_ fault: Fault?) { state.withLock { $0.outage = fault } }

    /// The broadcast channels open now, by id, with their storage policy (0 or 1).
    public var channels: [String: Int] { state.withLock { $0.channels.channels } }
    /// Every channel created so far, in order.
    public var createdChannels: [String] { state.withLock { $0.channels.created } }
    /// Every channel deleted so far, in order.
    public var deletedChannels: [String] { state.withLock { $0.channels.deleted } }

    /// Sets how many channels the app may have at once (Apple: 10,000 per app and environment).
    public func setChannelLimit(_ limit: Int) { state.withLock { $0.channels.limit = limit } }

    /// Deletes a channel behind the worker's back: later broadcasts to it get `ChannelNotRegistered`.
    public func removeChannel(_ id: String) { state.withLock { $0.channels.remove(id) } }

    /// Every broadcast accepted so far, in order.
    public var broadcasts: [FakeAPNsPush] { accepted.filter(\.isBroadcast) }

    /// Answers `429 TooManyRequests` to a broadcast past `limit` to one channel in the open window (`nil`: no
    /// limit), as APNs answers a channel updated too often.
    public func limitBroadcastsPerChannel(_ limit: Int?) { state.withLock { $0.channels.broadcastsPerWindow = limit } }

    /// Opens the next broadcast window: every channel has room for `limit` more.
    public func openBroadcastWindow() { state.withLock { $0.channels.openWindow() } }

    /// Turns broadcast on or off for the app (off: every channel request is `400 FeatureNotEnabled`).
    public func setBroadcastEnabled(_ enabled: Bool) { state.withLock { $0.channels.enabled = enabled } }

    /// Makes every answer wait this long (`nil`: answer at once).
    public func setResponseDelay(_ delay: Duration?) { state.withLock { $0.responseDelay = delay } }

    private func handle(_ request: RecordedRequest) async -> ServerResponse {
        // Received (``requestCount``), then accepted or refused: each is a change to wait on.
        changes.changed()
        defer { changes.changed() }
        let (fault, delay) = state.withLock { state -> (Fault?, Duration?) in
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return (state.faults.isEmpty ? state.outage : state.faults.removeFirst(), state.responseDelay)
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if let delay { try? await Task.sleep(for: delay) }
        switch fault {
        case .status(let status, let reason, let retryAfter)?:
            return answer(request, status: status, reason: reason, detail: "scripted", retryAfter: retryAfter)
        case .dropConnection?:
            return .fault(.closeConnection)
        case .delay(let duration)?:
            try? await Task.sleep(for: duration)
        case nil:
            break
        }
        let now = configuration.now()
        if FakeAPNsChannels.handles(request.path) {
            if let verdict = state.withLock({ $0.tokens.check(request.header("authorization"), now: now) }) {
                return answer(request, status: verdict.status, reason: verdict.reason, detail: verdict.detail)
            }
            switch state.withLock({ $0.channels.handle(request, bundleID: configuration.bundleID) }) {
            case .success(var response):
                response.headers.append(
                    ("apns-request-id", request.header("apns-request-id") ?? UUID().uuidString.lowercased()))
                return response
            case .failure(let verdict):
                return answer(request, status: verdict.status, reason: verdict.reason, detail: verdict.detail)
            }
        }
        if FakeAPNsChannels.isBroadcast(request.path) {
            if let verdict = state.withLock({ $0.tokens.check(request.header("authorization"), now: now) })
                ?? state.withLock({ $0.channels.broadcast(request, bundleID: configuration.bundleID) })
            {
                return answer(request, status: verdict.status, reason: verdict.reason, detail: verdict.detail)
            }
            state.withLock { $0.channels.countBroadcast(request) }
            return record(request, id: ("apns-request-id", request.header("apns-request-id") ?? UUID().uuidString))
        }
        if let verdict = FakeAPNsRequestCheck.headers(request, bundleID: configuration.bundleID)
            ?? state.withLock({ $0.tokens.check(request.header("authorization"), now: now) })
            ?? FakeAPNsRequestCheck.token(request)
        {
            return answer(request, status: verdict.status, reason: verdict.reason, detail: verdict.detail)
        }
        let token = String(request.path.dropFirst("/3/device/".count)).lowercased()
        if let reason = state.withLock({ $0.unregistered[token] }) {
            return answer(request, status: 410, reason: reason, detail: "scripted", timestamp: Int64(now) * 1000)
        }
        if let verdict = FakeAPNsRequestCheck.payload(request.body) {
            return answer(request, status: verdict.status, reason: verdict.reason, detail: verdict.detail)
        }
        return record(request, id: ("apns-id", apnsID(request)))
    }

    /// Records an accepted push or broadcast and answers 200 with its id header.
    private func record(_ request: RecordedRequest, id: (String, String)) -> ServerResponse {
        var headers: [String: String] = [:]
        for name in FakeAPNsPush.recordedHeaders { headers[name] = request.header(name) }
        let push = FakeAPNsPush(path: request.path, headers: headers, body: request.bodyText)
        state.withLock { $0.accepted.append(push) }
        return ServerResponse(status: 200, headers: [id])
    }

    private func answer(
        _ request: RecordedRequest, status: Int, reason: String, detail: String, retryAfter: Int? = nil,
        timestamp: Int64? = nil
    ) -> ServerResponse {
        state.withLock {
            $0.rejections.append(FakeAPNsRejection(status: status, reason: reason, detail: detail, path: request.path))
        }
        var headers = [("apns-id", apnsID(request)), ("content-type", "application/json")]
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        let body = (try? JSONEncoder().encode(ErrorBody(reason: reason, timestamp: timestamp))) ?? Data()
        return ServerResponse(status: status, headers: headers, body: body)
    }

    private func apnsID(_ request: RecordedRequest) -> String {
        request.header("apns-id") ?? UUID().uuidString.lowercased()
    }

    private struct ErrorBody: Encodable {
        var reason: String
        var timestamp: Int64?
    }

    /// Lets the server's handler reach the fake made after the server started.
    private final class Box: @unchecked Sendable {
        // Written once, before the first request can arrive; read under `lock`.
        private let lock = NSLock()
        private var _fake: FakeAPNs?
        var fake: FakeAPNs? {
            get { lock.withLock { _fake } }
            set { lock.withLock { _fake = newValue } }
        }
    }
}
