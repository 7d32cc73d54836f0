import Crypto
import Foundation
import Synchronization

/// A loopback Getui RestAPI v2 for tests: HTTP/2 over TLS with the test CA, as strict as Getui's documents
/// about the calls LiveRelay makes.
///
/// - `POST /v2/{appId}/auth` takes `{"sign", "timestamp", "appkey"}`: the app key, a 13-digit millisecond
///   timestamp and `sign = sha256(appkey + timestamp + mastersecret)` in hex; it answers
///   `{"code": 0, "data": {"token", "expire_time"}}`, the token valid a day after the timestamp.
/// - `POST /v2/{appId}/push/single/cid` (one message) and `/push/single/batch/cid` (`is_async`, `msg_list` of
///   1 to 200 messages) need a `token` header with a token it issued and has not expired (see
///   ``expireTokens()``; else HTTP 401, code 10001). Each message needs a `request_id` of 10 to 32 characters never seen before, `audience.cid` with
///   one `cid`, a `push_message` with one of `notification`, `transmission` or `revoke`, an optional
///   `settings.ttl` (-1 to 3 days in ms), and `push_channel.ios` with `type` `liveactivity` and an `aps` with
///   `timestamp`, `event` and `content-state`; a start also `attributes-type`, `attributes` and `alert`, an
///   update or an end an `laId`. Anything else is HTTP 400, code 20001, and nothing of the request is sent.
/// - A message to a `cid` marked invalid gets 20001 `target user is invalid` for its whole request.
/// - After ``moveDomain()``, requests reaching it as `127.0.0.1` get code 301 naming `https://localhost:<port>`
///   (the same server under the name the test certificate also carries).
///
/// Accepted requests are recorded with every `request_id` replaced by `<request-id>`, so equal pushes
/// record equal bodies; the ids themselves are in ``requestIDs``.
public final class FakeGetui: Sendable {
    /// A scripted answer for the next push (or, with `onAuth`, the next `auth`).
    public struct Fault: Sendable, Hashable {
        /// Getui's `code`.
        public var code: Int
        /// `msg`.
        public var msg: String
        /// The HTTP status.
        public var status: Int
        /// Whether it answers an `auth` call instead of a push.
        public var onAuth: Bool

        /// Creates a fault; the HTTP status is Getui's for the code unless given.
        public init(code: Int, msg: String = "scripted", status: Int? = nil, onAuth: Bool = false) {
            self.code = code
            self.msg = msg
            self.status = status ?? FakeGetui.httpStatus(code)
            self.onAuth = onAuth
        }
    }

    private struct State {
        var tokens: [String: Int] = [:]
        var issued = 0
        var faults: [Fault] = []
        var outage: Fault?
        var invalidCIDs: Set<String> = []
        var requestIDs: [String] = []
        var accepted: [FakeProviderRequest] = []
        var rejections: [String] = []
        var moved = false
    }

    /// The app id in every path.
    public let appID: String
    /// The app key `auth` must name.
    public let appKey: String
    private let masterSecret: String
    private let server: LoopbackHTTPServer
    private let state = Mutex(State())

    private init(appID: String, appKey: String, masterSecret: String, server: LoopbackHTTPServer) {
        self.appID = appID
        self.appKey = appKey
        self.masterSecret = masterSecret
        self.server = server
    }

    /// Starts the fake on `127.0.0.1` with the authority's certificate.
    public static func start(authority: TestCertificateAuthority, appID: String, appKey: String, masterSecret: String)
        async throws -> FakeGetui
    {
        let box = FakeBox<FakeGetui>()
        let server = try await LoopbackHTTPServer.start(mode: .http2TLS(authority)) { request in
            box.fake?.handle(request) ?? .text("starting", status: 503)
        }
        let fake = FakeGetui(appID: appID, appKey: appKey, masterSecret: masterSecret, server: server)
        box.fake = fake
        return fake
    }

    /// Stops listening.
    public func stop() async throws { try await server.stop() }
    /// `https://127.0.0.1:<port>`: the endpoint to configure (without `/v2`).
    public var url: String { server.baseURL }
    /// `https://localhost:<port>`: the domain a 301 names after ``moveDomain()``.
    public var movedURL: String { "https://localhost:\(server.port)" }
    /// Every push request accepted, in order, `request_id`s masked.
    public var accepted: [FakeProviderRequest] { state.withLock { $0.accepted } }
    /// Every `request_id` accepted, in order.
    public var requestIDs: [String] { state.withLock { $0.requestIDs } }
    /// What was refused, in words.
    public var rejections: [String] { state.withLock { $0.rejections } }
    /// How many tokens were issued.
    public var issuedTokens: Int { state.withLock { $0.issued } }
    /// The tokens issued and still valid.
    public var validTokens: [String] { state.withLock { Array($0.tokens.keys) } }
    /// Every request received.
    public var requests: [RecordedRequest] { server.requests }
    /// The push requests received (accepted or not).
    public var pushRequests: [RecordedRequest] { server.requests.filter { $0.path.contains("/push/") } }

    /// Queues answers; each push (or `auth`, for faults `onAuth`) takes the first one left for it.
    public func script(_ faults: [Fault]) { state.withLock { $0.faults += faults } }

    /// Answers every push with `fault` (when no scripted one is left) until called with `nil`.
    public func setOutage(_ fault: Fault?) { state.withLock { $0.outage = fault } }
    /// Answers messages to this `cid` with 20001 `target user is invalid` from now on.
    public func invalidate(cid: String) { state.withLock { _ = $0.invalidCIDs.insert(cid) } }
    /// Expires every token issued so far: the next push gets 10001.
    public func expireTokens() { state.withLock { $0.tokens.removeAll() } }
    /// Answers requests to `127.0.0.1` with 301 naming ``movedURL`` from now on.
    public func moveDomain() { state.withLock { $0.moved = true } }

    /// The HTTP status Getui sends with a code.
    public static func httpStatus(_ code: Int) -> Int {
        switch code {
        case 10000..<20000: 401
        case 20000..<30000: 400
        case 404, 405: code
        default: 200
        }
    }

    /// `sha256(appkey + timestamp + mastersecret)` in lower-case hex.
    public static func sign(appKey: String, timestamp: String, masterSecret: String) -> String {
        SHA256.hash(data: Data((appKey + timestamp + masterSecret).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private func handle(_ request: RecordedRequest) -> ServerResponse {
        let prefix = "/v2/\(appID)"
        guard request.method == "POST", request.path.hasPrefix(prefix + "/") else {
            return answer(404, "url error: \(request.method) \(request.path)")
        }
        let host = request.header("host") ?? ""
        if state.withLock({ $0.moved }), !host.hasPrefix("localhost") {
            return answer(301, "domain error", data: ["hostList": [["domainList": [movedURL]]], "domainHash": "moved"])
        }
        switch String(request.path.dropFirst(prefix.count)) {
        case "/auth": return auth(request)
        case "/push/single/cid": return push(request, batch: false)
        case "/push/single/batch/cid": return push(request, batch: true)
        default: return answer(404, "url error: \(request.path)")
        }
    }

    private func auth(_ request: RecordedRequest) -> ServerResponse {
        if let fault = takeFault(onAuth: true) { return answer(fault.code, fault.msg, status: fault.status) }
        guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            let sign = body["sign"] as? String, let timestamp = body["timestamp"] as? String,
            let key = body["appkey"] as? String
        else { return answer(20001, "sign, timestamp and appkey are required strings") }
        guard timestamp.count == 13, let milliseconds = Int(timestamp) else {
            return answer(20001, "timestamp is invalid")
        }
        guard key == appKey, sign == Self.sign(appKey: key, timestamp: timestamp, masterSecret: masterSecret) else {
            return answer(20001, "sign is invalid")
        }
        let token = state.withLock { state in
            state.issued += 1
            let token = Self.sign(appKey: "token", timestamp: String(state.issued), masterSecret: timestamp)
            state.tokens[token] = milliseconds + 86_400_000
            return token
        }
        return answer(0, "success", data: ["token": token, "expire_time": String(milliseconds + 86_400_000)])
    }

    private func push(_ request: RecordedRequest, batch: Bool) -> ServerResponse {
        guard let token = request.header("token"), state.withLock({ $0.tokens[token] != nil }) else {
            return answer(10001, "token is invalid")
        }
        if let fault = takeFault(onAuth: false) { return answer(fault.code, fault.msg, status: fault.status) }
        guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
            return answer(1, "the body is not JSON")
        }
        let messages: [[String: Any]]
        if batch {
            guard let list = body["msg_list"] as? [[String: Any]], !list.isEmpty else {
                return answer(20001, "msg_list can not be empty")
            }
            guard list.count <= 200 else { return answer(20001, "msg_list size over limit") }
            if let async = body["is_async"], !(async is Bool) { return answer(20001, "is_async type error") }
            messages = list
        } else {
            messages = [body]
        }
        var ids: [String] = []
        for message in messages {
            if let problem = Self.check(message) { return answer(20001, problem) }
            ids.append(message["request_id"] as! String)
        }
        let seen = state.withLock { Set($0.requestIDs) }
        guard Set(ids).count == ids.count, seen.isDisjoint(with: ids) else {
            return answer(20001, "request_id cannot be repeat.")
        }
        let cids = messages.map { ($0["audience"] as! [String: Any])["cid"] as! [String] }.map { $0[0] }
        guard Set(cids).count == cids.count else { return answer(20001, "contains duplicate cid") }
        if state.withLock({ !$0.invalidCIDs.isDisjoint(with: cids) }) {
            return answer(20001, "target user is invalid")
        }
        var masked = request.bodyText
        for id in ids { masked = masked.replacingOccurrences(of: "\"\(id)\"", with: "\"<request-id>\"") }
        let tasks = state.withLock { state in
            state.requestIDs += ids
            state.accepted.append(FakeProviderRequest(path: request.path, body: masked))
            return state.accepted.count
        }
        var data: [String: Any] = [:]
        for (i, cid) in cids.enumerated() { data["RASS_\(tasks)_\(i)"] = [cid: "successed_offline"] }
        return answer(0, "", data: data)
    }

    /// What is wrong with one message, or `nil`.
    static func check(_ m: [String: Any]) -> String? {
        guard let id = m["request_id"] as? String else { return "request_id can not be empty" }
        guard (10...32).contains(id.count) else { return "request_id size over limit" }
        guard let cids = (m["audience"] as? [String: Any])?["cid"] as? [String], cids.count == 1, !cids[0].isEmpty
        else { return "audience.cid must hold one cid" }
        guard let message = m["push_message"] as? [String: Any] else { return "push_message can not be empty" }
        let kinds = ["notification", "transmission", "revoke"].filter { message[$0] != nil }
        guard kinds.count == 1 else {
            return "please choose one of notification and transmission and revoke"
        }
        if let transmission = message["transmission"], !(transmission is String) { return "transmission type error" }
        if let settings = m["settings"] {
            guard let settings = settings as? [String: Any] else { return "settings type error" }
            if let ttl = settings["ttl"] {
                guard let ttl = ttl as? Int, (-1...259_200_000).contains(ttl) else { return "ttl is invalid" }
            }
        }
        guard let ios = (m["push_channel"] as? [String: Any])?["ios"] as? [String: Any] else {
            return "push_channel.ios can not be empty"
        }
        guard ios["type"] as? String == "liveactivity" else { return "ios.type must be liveactivity" }
        guard let aps = ios["aps"] as? [String: Any] else { return "ios.aps can not be empty" }
        guard aps["timestamp"] is Int, let event = aps["event"] as? String, aps["content-state"] is [String: Any]
        else { return "aps needs timestamp, event and content-state" }
        switch event {
        case "start":
            guard aps["attributes-type"] is String, aps["attributes"] is [String: Any], aps["alert"] is [String: Any]
            else { return "a start needs attributes-type, attributes and alert" }
        case "update", "end":
            guard let la = ios["laId"] as? String, !la.isEmpty else { return "laId can not be empty" }
        default:
            return "aps.event is invalid"
        }
        if let dismissal = aps["dismissal-date"], !(dismissal is Int) { return "dismissal-date type error" }
        if let badge = ios["auto_badge"], !(badge is String) { return "auto_badge type error" }
        return nil
    }

    private func takeFault(onAuth: Bool) -> Fault? {
        state.withLock { state in
            guard let index = state.faults.firstIndex(where: { $0.onAuth == onAuth }) else {
                return onAuth ? nil : state.outage
            }
            return state.faults.remove(at: index)
        }
    }

    private func answer(_ code: Int, _ msg: String, status: Int? = nil, data: [String: Any]? = nil) -> ServerResponse {
        if code != 0 { state.withLock { $0.rejections.append("\(code): \(msg)") } }
        var object: [String: Any] = ["code": code, "msg": msg]
        if let data { object["data"] = data }
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return ServerResponse(
            status: status ?? Self.httpStatus(code), headers: [("content-type", "application/json;charset=utf-8")],
            body: body)
    }
}
