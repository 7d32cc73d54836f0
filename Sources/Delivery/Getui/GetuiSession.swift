import Crypto
import Foundation
import HTTP
import LiveRelayCore

/// What every Getui request shares: the domain in use (the configured one until a 301 names another), the
/// auth token (fetched with `sign = sha256(appkey + timestamp + mastersecret)` and kept until shortly before
/// its `expire_time`, so concurrent requests wait for a single `auth` call), and the pause after a
/// per-minute rate limit. `now` (UNIX milliseconds) is injected.
actor GetuiSession {
    /// Refresh this many milliseconds before the token's `expire_time`.
    static let margin = 300_000

    private let appID: String
    private let appKey: String
    private let masterSecret: Secret
    private let transport: any HTTPTransport
    private let timeout: Duration
    private let now: @Sendable () -> Int
    private let credentials: CredentialCache<GetuiAuthError>
    /// The domain requests go to, without a trailing slash.
    private(set) var domain: String
    /// Until when (UNIX ms) no request is sent, after Getui said a per-minute limit was exceeded.
    private var pausedUntil = 0

    init(
        appID: String, appKey: String, masterSecret: Secret, domain: String, transport: any HTTPTransport,
        timeout: Duration, now: @escaping @Sendable () -> Int
    ) {
        self.appID = appID
        self.appKey = appKey
        self.masterSecret = masterSecret
        self.domain = domain
        self.transport = transport
        self.timeout = timeout
        self.now = now
        credentials = CredentialCache(margin: Self.margin, now: now)
    }

    /// How many tokens were fetched so far.
    var fetched: Int { get async { await credentials.fetched } }

    /// `{domain}/v2/{appId}`: what every path is appended to.
    var base: String { "\(domain)/v2/\(appID)" }

    /// The token to send now, fetching one when there is none or it is about to expire.
    func token() async throws(GetuiAuthError) -> String {
        let (base, appKey, secret, transport, timeout, now) = (
            self.base, self.appKey, masterSecret, self.transport, self.timeout, self.now
        )
        do {
            return try await credentials.token { await Self.fetch(base, appKey, secret, now(), transport, timeout) }
        } catch {
            if error.code == .moved, let domain = error.domain { self.domain = domain }
            throw error
        }
    }

    /// Forgets the current token: Getui answered 10001 for it.
    func invalidate() async { await credentials.invalidate() }

    /// Sends every later request to `domain` (a 301 named it).
    func move(to domain: String) { self.domain = domain }

    /// Sends nothing for `seconds`; returns when the pause ends, in seconds from now.
    func pause(seconds: Int) -> Int {
        pausedUntil = max(pausedUntil, now() + seconds * 1000)
        return remainingPause ?? seconds
    }

    /// Whole seconds left of a pause, or `nil` when requests may go.
    var remainingPause: Int? {
        let left = pausedUntil - now()
        return left > 0 ? (left + 999) / 1000 : nil
    }

    /// `sha256(appkey + timestamp + mastersecret)` in lower-case hex.
    static func sign(appKey: String, timestamp: Int, masterSecret: Secret) -> String {
        SHA256.hash(data: Data((appKey + String(timestamp) + masterSecret.value).utf8))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// `POST /auth`: `{"sign", "timestamp", "appkey"}` (the timestamp a 13-digit string).
    struct AuthRequest: Codable {
        var sign: String
        var timestamp: String
        var appkey: String
    }

    private static func fetch(
        _ base: String, _ appKey: String, _ secret: Secret, _ timestamp: Int, _ transport: any HTTPTransport,
        _ timeout: Duration
    ) async -> Result<(token: String, expiresAt: Int), GetuiAuthError> {
        let body: Data
        do {
            body = try AuthRequest(
                sign: sign(appKey: appKey, timestamp: timestamp, masterSecret: secret), timestamp: String(timestamp),
                appkey: appKey
            ).canonicalJSON()
        } catch {
            return .failure(GetuiAuthError(code: .rejected, message: "the auth request cannot be encoded"))
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: base + "/auth",
                    headers: [HTTPHeader("content-type", "application/json;charset=utf-8")], body: body,
                    timeout: timeout, maxResponseBytes: 64 << 10))
        } catch {
            return .failure(GetuiAuthError(code: .unreachable, message: "no answer from Getui auth: \(error.code)"))
        }
        let answer = try? JSONDecoder().decode(GetuiAnswer.self, from: response.body)
        let text = "Getui auth answered code \(answer.map { String($0.code) } ?? "none") (HTTP \(response.status))"
        switch GetuiCode.action(status: response.status, answer: answer) {
        case .delivered:
            guard let token = try? JSONDecoder().decode(GetuiAnswer.Token.self, from: response.body).data,
                let expiresAt = Int(token.expireTime)
            else { return .failure(GetuiAuthError(code: .rejected, message: "\(text) without a token")) }
            return .success((token.token, expiresAt))
        case .switchDomain:
            let domain = (try? JSONDecoder().decode(GetuiAnswer.Domains.self, from: response.body))?.first
            return .failure(GetuiAuthError(code: .moved, message: text, domain: domain))
        case .rateLimited:
            return .failure(GetuiAuthError(code: .rateLimited, message: text))
        case .retry:
            return .failure(GetuiAuthError(code: .unreachable, message: text))
        case .refreshToken, .dropTarget, .configuration:
            return .failure(GetuiAuthError(code: .rejected, message: text))
        }
    }
}

/// Why no Getui token could be had. Names the code Getui answered, never the master secret, the sign or a
/// token.
public struct GetuiAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of problem, fit for a metric label.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The name.
        public let name: String
        /// Creates a code.
        public init(_ name: String) { self.name = name }
        /// Getui did not answer, or answered 5xx or code 2: try again later.
        public static let unreachable = Code("unreachable")
        /// Too many `auth` calls this minute (10003): pause.
        public static let rateLimited = Code("rate_limited")
        /// The app id belongs to another data centre (301): use the domain Getui named.
        public static let moved = Code("moved")
        /// Getui refused the app key, the sign or the app id: the configuration is wrong.
        public static let rejected = Code("rejected")
        /// The same as `name`.
        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// In words.
    public var message: String
    /// For `moved`: the domain to use.
    public var domain: String?

    /// Creates an error.
    public init(code: Code, message: String, domain: String? = nil) {
        self.code = code
        self.message = message
        self.domain = domain
    }

    /// `rejected: …`.
    public var description: String { "\(code): \(message)" }
}
