import Foundation
import Synchronization
public import _CryptoExtras

/// A loopback Firebase Cloud Messaging (HTTP v1) with its OAuth 2.0 token endpoint, for tests: HTTP/2 over
/// TLS with the test CA, as strict as Google about what the FCM Live Activity guide documents.
///
/// - `POST /token` takes a JWT-bearer grant whose RS256 assertion must verify with the service account's
///   public key and name its e-mail (`iss`), the FCM scope, this endpoint (`aud`) and a one-hour lifetime;
///   it answers `{"access_token", "expires_in": 3600, "token_type": "Bearer"}`.
/// - `POST /v1/projects/{project}/messages:send` needs a current access token (else 401 `UNAUTHENTICATED`)
///   and a message with `token`, `apns.live_activity_token`, `apns.headers.apns-priority` (5 or 10; other
///   headers only `apns-*` ones, `apns-expiration` a UNIX time) and an
///   `aps` with `timestamp`, `event` and `content-state` (a start also `attributes-type`, `attributes` and an
///   alert); else 400 `INVALID_ARGUMENT`. Unregistered tokens get 404 `UNREGISTERED`.
public final class FakeFCM: Sendable {
    /// A scripted error for the next `messages:send`.
    public struct Fault: Sendable, Hashable {
        /// The HTTP status.
        public var status: Int
        /// `error.status` (`UNAVAILABLE`, …).
        public var canonical: String
        /// `error.details[].errorCode`, when FCM gives one.
        public var errorCode: String?
        /// A `Retry-After` header.
        public var retryAfter: Int?

        /// Creates a fault.
        public init(status: Int, canonical: String, errorCode: String? = nil, retryAfter: Int? = nil) {
            self.status = status
            self.canonical = canonical
            self.errorCode = errorCode
            self.retryAfter = retryAfter
        }
    }

    private struct State {
        var issued: [String] = []
        var faults: [Fault] = []
        var outage: Fault?
        var unregistered: Set<String> = []
        var accepted: [FakeProviderRequest] = []
        var rejections: [String] = []
        var latency: Duration = .zero
        var inFlight = 0
        var mostInFlight = 0
    }

    /// The service account's e-mail.
    public let clientEmail: String
    /// The project messages must be sent to.
    public let projectID: String
    private let publicKey: _RSA.Signing.PublicKey
    private let server: LoopbackHTTPServer
    private let state = Mutex(State())

    private init(clientEmail: String, projectID: String, publicKey: _RSA.Signing.PublicKey, server: LoopbackHTTPServer)
    {
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.publicKey = publicKey
        self.server = server
    }

    /// Starts the fake on `127.0.0.1` with the authority's certificate.
    public static func start(
        authority: TestCertificateAuthority, clientEmail: String, projectID: String, publicKey: _RSA.Signing.PublicKey
    ) async throws -> FakeFCM {
        let box = FakeBox<FakeFCM>()
        let server = try await LoopbackHTTPServer.start(mode: .http2TLS(authority)) { request in
            guard let fake = box.fake else { return .text("starting", status: 503) }
            return await fake.answer(request)
        }
        let fake = FakeFCM(clientEmail: clientEmail, projectID: projectID, publicKey: publicKey, server: server)
        box.fake = fake
        return fake
    }

    /// Stops listening.
    public func stop() async throws { try await server.stop() }

    /// `https://127.0.0.1:<port>`: the FCM endpoint to configure.
    public var url: String { server.baseURL }
    /// The token endpoint to configure (and the key file's `token_uri`).
    public var tokenURL: String { server.baseURL + "/token" }
    /// Every message accepted, in order.
    public var accepted: [FakeProviderRequest] { state.withLock { $0.accepted } }
    /// What was refused, in words.
    public var rejections: [String] { state.withLock { $0.rejections } }
    /// How many access tokens were issued.
    public var issuedTokens: Int { state.withLock { $0.issued.count } }
    /// Every request received.
    public var requests: [RecordedRequest] { server.requests }

    /// Answers messages to this registration token with 404 `UNREGISTERED` from now on.
    public func unregister(_ registrationToken: String) {
        state.withLock { _ = $0.unregistered.insert(registrationToken) }
    }
    /// Queues faults; each `messages:send` takes the first one left.
    public func script(_ faults: [Fault]) { state.withLock { $0.faults += faults } }

    /// Answers every `messages:send` with `fault` (when no scripted one is left) until called with `nil`.
    public func setOutage(_ fault: Fault?) { state.withLock { $0.outage = fault } }
    /// Answers each request `latency` after it came, as a server that far away would.
    public func setLatency(_ latency: Duration) { state.withLock { $0.latency = latency } }
    /// The most requests that were being answered at once.
    public var mostInFlight: Int { state.withLock { $0.mostInFlight } }
    /// The TCP connections accepted so far.
    public var connectionCount: Int { server.connectionCount }

    private func answer(_ request: RecordedRequest) async -> ServerResponse {
        let latency = state.withLock { state in
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            return state.latency
        }
        if latency > .zero { try? await Task.sleep(for: latency) }
        let response = handle(request)
        state.withLock { $0.inFlight -= 1 }
        return response
    }

    /// Revokes every access token issued so far: the next message gets 401.
    public func revokeAccessTokens() { state.withLock { $0.issued.removeAll() } }

    private func handle(_ request: RecordedRequest) -> ServerResponse {
        if request.method == "POST", request.path == "/token" { return token(request) }
        guard request.method == "POST", request.path == "/v1/projects/\(projectID)/messages:send" else {
            return error(404, "NOT_FOUND", nil, "no such method: \(request.method) \(request.path)")
        }
        let bearer = request.header("authorization") ?? ""
        guard bearer.hasPrefix("Bearer "), state.withLock({ $0.issued.contains(String(bearer.dropFirst(7))) }) else {
            return error(401, "UNAUTHENTICATED", nil, "no valid access token")
        }
        if let fault = state.withLock({ $0.faults.isEmpty ? $0.outage : $0.faults.removeFirst() }) {
            return error(fault.status, fault.canonical, fault.errorCode, "scripted", retryAfter: fault.retryAfter)
        }
        guard let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            let message = json["message"] as? [String: Any]
        else { return error(400, "INVALID_ARGUMENT", nil, "the body is not {\"message\": …}") }
        if let problem = Self.check(message) { return error(400, "INVALID_ARGUMENT", nil, problem) }
        if state.withLock({ $0.unregistered.contains(message["token"] as? String ?? "") }) {
            return error(404, "NOT_FOUND", "UNREGISTERED", "the registration token is not registered")
        }
        let name = "projects/\(projectID)/messages/\(state.withLock { $0.accepted.count } + 1)"
        state.withLock { $0.accepted.append(FakeProviderRequest(path: request.path, body: request.bodyText)) }
        return json200(["name": name])
    }

    /// What is wrong with a message, or `nil`.
    static func check(_ message: [String: Any]) -> String? {
        guard message["token"] is String else { return "message.token is missing" }
        guard let apns = message["apns"] as? [String: Any] else { return "message.apns is missing" }
        guard apns["live_activity_token"] is String else { return "apns.live_activity_token is missing" }
        guard let headers = apns["headers"] as? [String: String], ["5", "10"].contains(headers["apns-priority"] ?? "")
        else { return "apns.headers.apns-priority must be 5 or 10" }
        if let expiration = headers["apns-expiration"], Int(expiration) == nil {
            return "apns.headers.apns-expiration must be a UNIX time"
        }
        if let other = headers.keys.sorted().first(where: { !$0.hasPrefix("apns-") }) {
            return "apns.headers.\(other) is not an APNs header"
        }
        guard let aps = (apns["payload"] as? [String: Any])?["aps"] as? [String: Any] else {
            return "apns.payload.aps is missing"
        }
        guard aps["timestamp"] is Int, let event = aps["event"] as? String, aps["content-state"] is [String: Any]
        else { return "aps needs timestamp, event and content-state" }
        if event == "start" {
            guard aps["attributes-type"] is String, aps["attributes"] is [String: Any], aps["alert"] is [String: Any]
            else { return "a start needs attributes-type, attributes and alert" }
        } else if !["update", "end"].contains(event) {
            return "unknown event \(event)"
        }
        return nil
    }

    private func token(_ request: RecordedRequest) -> ServerResponse {
        var form: [String: String] = [:]
        for pair in request.bodyText.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"]
        else { return oauthError("unsupported_grant_type") }
        let parts = assertion.split(separator: ".").map(String.init)
        guard parts.count == 3, let header = Self.decode(parts[0]), let claims = Self.decode(parts[1]),
            let signature = Self.base64URLDecode(parts[2]),
            publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data((parts[0] + "." + parts[1]).utf8),
                padding: .insecurePKCS1v1_5)
        else { return oauthError("invalid_grant") }
        guard header["alg"] as? String == "RS256", claims["iss"] as? String == clientEmail,
            claims["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging",
            claims["aud"] as? String == tokenURL, let iat = claims["iat"] as? Int, let exp = claims["exp"] as? Int,
            exp - iat <= 3600, exp > iat
        else { return oauthError("invalid_grant") }
        let token = "ya29.fake-\(UUID().uuidString)"
        state.withLock { $0.issued.append(token) }
        return json200(["access_token": token, "expires_in": 3600, "token_type": "Bearer"])
    }

    private func error(_ status: Int, _ canonical: String, _ code: String?, _ detail: String, retryAfter: Int? = nil)
        -> ServerResponse
    {
        state.withLock { $0.rejections.append("\(status) \(code ?? canonical): \(detail)") }
        var error: [String: Any] = ["code": status, "message": detail, "status": canonical]
        if let code {
            error["details"] = [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code]]
        }
        var response = json200(["error": error])
        response.status = status
        if let retryAfter { response.headers.append(("retry-after", String(retryAfter))) }
        return response
    }

    private func oauthError(_ code: String) -> ServerResponse {
        state.withLock { $0.rejections.append("token endpoint: \(code)") }
        var response = json200(["error": code, "error_description": "refused by the fake"])
        response.status = 400
        return response
    }

    private func json200(_ object: [String: Any]) -> ServerResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return ServerResponse(status: 200, headers: [("content-type", "application/json")], body: body)
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }

    static func decode(_ part: String) -> [String: Any]? {
        base64URLDecode(part).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}
