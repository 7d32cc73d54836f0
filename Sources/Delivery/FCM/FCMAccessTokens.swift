import Foundation
import HTTP
import LiveRelayCore

/// Exchanges the service account's assertions for OAuth 2.0 access tokens, kept in a ``CredentialCache``
/// until shortly before they run out (`expires_in`, an hour at Google). `now` (UNIX seconds) is injected.
struct FCMAccessTokens: Sendable {
    /// Refresh this many seconds before the token's end, so a request never carries an expiring token.
    static let margin = 300

    private let account: FCMServiceAccount
    private let tokenURL: String
    private let transport: any HTTPTransport
    private let timeout: Duration
    private let now: @Sendable () -> Int
    private let cache: CredentialCache<FCMAuthError>

    init(
        account: FCMServiceAccount, tokenURL: String, transport: any HTTPTransport, timeout: Duration,
        now: @escaping @Sendable () -> Int
    ) {
        self.account = account
        self.tokenURL = tokenURL
        self.transport = transport
        self.timeout = timeout
        self.now = now
        cache = CredentialCache(margin: Self.margin, now: now)
    }

    /// How many tokens were fetched so far.
    var fetched: Int { get async { await cache.fetched } }

    /// The access token to send now, fetching a new one when there is none or it is about to expire.
    func token() async throws(FCMAuthError) -> String {
        let (account, url, transport, timeout, now) = (self.account, tokenURL, self.transport, self.timeout, self.now)
        return try await cache.token { await Self.fetch(account, url, transport, timeout, now()) }
    }

    /// Forgets the current token: FCM answered 401 for it.
    func invalidate() async { await cache.invalidate() }

    private static func fetch(
        _ account: FCMServiceAccount, _ url: String, _ transport: any HTTPTransport, _ timeout: Duration,
        _ issuedAt: Int
    ) async -> Result<(token: String, expiresAt: Int), FCMAuthError> {
        let assertion: String
        do {
            assertion = try account.assertion(issuedAt: issuedAt, audience: account.tokenURI)
        } catch {
            return .failure(FCMAuthError(code: .signing, message: error.description))
        }
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            URLQueryItem(name: "assertion", value: assertion),
        ]
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: url,
                    headers: [HTTPHeader("content-type", "application/x-www-form-urlencoded")],
                    body: Data((form.percentEncodedQuery ?? "").utf8), timeout: timeout, maxResponseBytes: 64 << 10))
        } catch {
            return .failure(
                FCMAuthError(code: .unreachable, message: "no answer from the token endpoint: \(error.code)"))
        }
        guard response.status == 200,
            let body = try? JSONDecoder().decode(TokenResponse.self, from: response.body)
        else {
            let error = try? JSONDecoder().decode(TokenError.self, from: response.body)
            let code: FCMAuthError.Code = (500...599).contains(response.status) ? .unreachable : .rejected
            return .failure(
                FCMAuthError(
                    code: code,
                    message:
                        "the token endpoint refused \(account) (\(response.status) \(error?.error ?? "no error code"))")
            )
        }
        return .success((body.accessToken, issuedAt + (body.expiresIn ?? 3600)))
    }

    /// `{"access_token": "ya29…", "expires_in": 3599, "token_type": "Bearer"}`.
    struct TokenResponse: Codable {
        var accessToken: String
        var expiresIn: Int?
        var tokenType: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }

    /// `{"error": "invalid_grant", "error_description": "…"}`; only the code is kept (the description may
    /// quote the request).
    struct TokenError: Codable {
        var error: String
    }
}

/// Why no FCM access token could be had. Names the account, never the key or a token.
public struct FCMAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of problem, fit for a metric label.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The name.
        public let name: String
        /// Creates a code.
        public init(_ name: String) { self.name = name }
        /// The assertion could not be signed.
        public static let signing = Code("signing")
        /// The token endpoint did not answer, or answered 5xx: try again later.
        public static let unreachable = Code("unreachable")
        /// The token endpoint refused the assertion: the service account is wrong.
        public static let rejected = Code("rejected")
        /// The same as `name`.
        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// In words.
    public var message: String
    /// `rejected: …`.
    public var description: String { "\(code): \(message)" }
}
