import Foundation
import LiveRelayCore
import Synchronization

/// A loopback Pushwoosh for tests: HTTP/2 over TLS with the test CA, checking `startLiveActivity` and
/// `updateLiveActivity` requests against the API reference.
///
/// A request must be `{"request": {"application", "auth", "notifications": [...]}}` with the configured
/// application code and API token (else 401 with `status_code` 401). A start notification needs `content`,
/// `live_activity` with `content-state`, `attributes-type` and `attributes`, and `live_activity_id`;
/// `devices` and `users` hold at most 1000 entries, iOS tokens in lower case. Its audience is a segment
/// (`filter_code`, a non-empty string) or `devices`/`users` (users win over devices, as documented), never
/// both: the reference does not say which would win. A start with none of the three is refused too: Pushwoosh
/// would send it to every device of the application, which LiveRelay must never do. An update notification needs
/// `live_activity` with `event` (`update` or `end`) and `content-state`, and `live_activity_id`. A wrong
/// argument is answered 200 with `status_code` 210, as Pushwoosh does. Accepted requests are recorded with
/// `auth` masked.
public final class FakePushwoosh: Sendable {
    /// A scripted answer for the next request.
    public struct Fault: Sendable, Hashable {
        /// The HTTP status.
        public var status: Int
        /// The body's `status_code`.
        public var statusCode: Int
        /// A `Retry-After` header.
        public var retryAfter: Int?

        /// Creates a fault.
        public init(status: Int, statusCode: Int, retryAfter: Int? = nil) {
            self.status = status
            self.statusCode = statusCode
            self.retryAfter = retryAfter
        }
    }

    private struct State {
        var faults: [Fault] = []
        var outage: Fault?
        var accepted: [FakeProviderRequest] = []
        var rejections: [String] = []
    }

    /// The application code requests must name.
    public let application: String
    private let apiToken: String
    private let server: LoopbackHTTPServer
    private let state = Mutex(State())

    private init(application: String, apiToken: String, server: LoopbackHTTPServer) {
        self.application = application
        self.apiToken = apiToken
        self.server = server
    }

    /// Starts the fake on `127.0.0.1` with the authority's certificate.
    public static func start(authority: TestCertificateAuthority, application: String, apiToken: String)
        async throws -> FakePushwoosh
    {
        let box = FakeBox<FakePushwoosh>()
        let server = try await LoopbackHTTPServer.start(mode: .http2TLS(authority)) { request in
            box.fake?.handle(request) ?? .text("starting", status: 503)
        }
        let fake = FakePushwoosh(application: application, apiToken: apiToken, server: server)
        box.fake = fake
        return fake
    }

    /// Stops listening.
    public func stop() async throws { try await server.stop() }
    /// `https://127.0.0.1:<port>`: the endpoint to configure.
    public var url: String { server.baseURL }
    /// Every request accepted, in order, `auth` masked.
    public var accepted: [FakeProviderRequest] { state.withLock { $0.accepted } }
    /// What was refused, in words.
    public var rejections: [String] { state.withLock { $0.rejections } }
    /// Every request received.
    public var requests: [RecordedRequest] { server.requests }
    /// Queues answers; each request takes the first one left.
    public func script(_ faults: [Fault]) { state.withLock { $0.faults += faults } }

    /// Answers every request with `fault` (when no scripted one is left) until called with `nil`.
    public func setOutage(_ fault: Fault?) { state.withLock { $0.outage = fault } }

    private func handle(_ request: RecordedRequest) -> ServerResponse {
        let start = request.path == "/json/1.3/startLiveActivity"
        guard request.method == "POST", start || request.path == "/json/1.3/updateLiveActivity" else {
            return answer(404, 404, "Not found: \(request.path)")
        }
        if let fault = state.withLock({ $0.faults.isEmpty ? $0.outage : $0.faults.removeFirst() }) {
            return answer(fault.status, fault.statusCode, "scripted", retryAfter: fault.retryAfter)
        }
        guard let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            let body = json["request"] as? [String: Any]
        else { return answer(400, 400, "the body is not {\"request\": …}") }
        guard body["application"] as? String == application, body["auth"] as? String == apiToken else {
            return answer(401, 401, "wrong application or API token")
        }
        guard let notifications = body["notifications"] as? [[String: Any]], !notifications.isEmpty else {
            return answer(200, 210, "notifications is missing or empty")
        }
        if let problem = Self.checkRelevance(request.body) { return answer(400, 400, problem) }
        for notification in notifications {
            if let problem = start ? Self.checkStart(notification) : Self.checkUpdate(notification) {
                return answer(200, 210, problem)
            }
        }
        let masked = request.bodyText.replacingOccurrences(of: "\"\(apiToken)\"", with: "\"<auth>\"")
        let count = state.withLock {
            $0.accepted.append(FakeProviderRequest(path: request.path, body: masked))
            return $0.accepted.count
        }
        return answer(200, 200, "OK", messages: (0..<notifications.count).map { "FAKE-\(count)-\($0)" })
    }

    static func checkStart(_ n: [String: Any]) -> String? {
        guard n["content"] is String else { return "content is required" }
        guard let la = n["live_activity"] as? [String: Any], la["content-state"] is [String: Any],
            la["attributes-type"] is String, la["attributes"] is [String: Any]
        else { return "live_activity needs content-state, attributes-type and attributes" }
        guard n["live_activity_id"] is String else { return "live_activity_id is required" }
        let audiences = ["filter_code", "devices", "users"].filter { n[$0] != nil }
        if n["filter_code"] != nil {
            guard let code = n["filter_code"] as? String, !code.isEmpty else {
                return "filter_code: a non-empty segment code"
            }
            guard audiences == ["filter_code"] else {
                return "filter_code with devices or users: give one audience, a segment or a list"
            }
        }
        guard !audiences.isEmpty else {
            return "filter_code, devices or users is required (a start to everyone is refused)"
        }
        for key in ["devices", "users"] {
            guard let list = n[key] else { continue }
            guard let strings = list as? [String], strings.count <= 1000 else { return "\(key): at most 1000 strings" }
            // iOS push tokens (hex) must be lower case; HWIDs are identifiers and keep their case.
            if key == "devices", strings.contains(where: { isHex($0) && $0 != $0.lowercased() }) {
                return "devices: iOS push tokens must be lower case"
            }
        }
        return nil
    }

    /// A push token: 64 or more hex digits (of either case).
    static func isHex(_ text: String) -> Bool {
        text.utf8.count >= 64
            && text.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
            }
    }

    /// Every `relevance-score` of the body, where there is one, must be an integer from 1 (Pushwoosh's API
    /// reference); Pushwoosh answers anything else with HTTP 400.
    static func checkRelevance(_ body: Data) -> String? {
        guard case .array(let notifications)? = (try? JSONParser.parse(body))?["request"]?["notifications"] else {
            return nil
        }
        for notification in notifications {
            guard let score = notification["live_activity"]?["relevance-score"] else { continue }
            guard case .int(let n) = score, n >= 1 else { return "relevance-score: an integer from 1" }
        }
        return nil
    }

    static func checkUpdate(_ n: [String: Any]) -> String? {
        guard let la = n["live_activity"] as? [String: Any], ["update", "end"].contains(la["event"] as? String ?? ""),
            la["content-state"] is [String: Any]
        else { return "live_activity needs event (update or end) and content-state" }
        guard n["live_activity_id"] is String else { return "live_activity_id is required" }
        return nil
    }

    private func answer(
        _ status: Int, _ statusCode: Int, _ message: String, retryAfter: Int? = nil, messages: [String] = []
    )
        -> ServerResponse
    {
        if statusCode != 200 { state.withLock { $0.rejections.append("\(status)/\(statusCode): \(message)") } }
        var object: [String: Any] = ["status_code": statusCode, "status_message": message]
        object["response"] = statusCode == 200 ? ["Messages": messages] : NSNull()
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers = [("content-type", "application/json")]
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        return ServerResponse(status: status, headers: headers, body: body)
    }
}
