public import Foundation
public import HTTP
public import LiveRelayCore

/// Delivers Live Activity pushes through Firebase Cloud Messaging's HTTP v1 API.
///
/// One `messages:send` request per install (FCM has no batch endpoint; the pipeline sends them concurrently
/// and libcurl multiplexes them over HTTP/2). The OAuth 2.0 access token comes from the service account
/// (see ``FCMServiceAccount``), is shared by every request, and is replaced before its hour runs out or when
/// FCM answers 401.
public final class FCMProvider: SingleTargetProvider {
    /// How the provider reaches FCM.
    public struct Configuration: Sendable {
        /// The API's base URL, without a trailing slash (`https://fcm.googleapis.com`).
        public var endpoint: String
        /// Where assertions are exchanged for access tokens; `nil`: the key file's `token_uri`.
        public var tokenURL: String?
        /// The Firebase project; `nil`: the key file's `project_id`.
        public var projectID: String?
        /// The limit for one request.
        public var requestTimeout: Duration
        /// `apns-expiration`: seconds after a push's timestamp during which APNs may keep it.
        public var expirationSeconds: Int

        /// Creates a configuration.
        public init(
            endpoint: String = "https://fcm.googleapis.com", tokenURL: String? = nil, projectID: String? = nil,
            requestTimeout: Duration = .seconds(10), expirationSeconds: Int = 3600
        ) {
            self.expirationSeconds = expirationSeconds
            var endpoint = endpoint
            while endpoint.hasSuffix("/") { endpoint.removeLast() }
            self.endpoint = endpoint
            self.tokenURL = tokenURL
            self.projectID = projectID
            self.requestTimeout = requestTimeout
        }
    }

    /// The APNs tokens, each with the install's registration token from the `fcm` registry; up to 500 messages
    /// in flight. FCM has no batch endpoint, so what bounds a fan-out is the requests in flight over the round
    /// trip: 500 over 50 ms is FCM's default quota (600,000 messages a minute, 10,000 a second), where 64
    /// gave 1,300–3,200 a second. The push lane opens connections as Google's streams per connection fill.
    public let traits = ProviderTraits(
        kind: .fcm, addressing: .apnsTokensWithAddress(registry: AddressSchema.fcm.registry),
        maxConcurrentDeliveries: 500)
    /// The configuration the provider was made with.
    public let configuration: Configuration
    /// The project messages go to.
    public let projectID: String
    private let transport: any HTTPTransport
    private let tokens: FCMAccessTokens

    /// - Parameters:
    ///   - transport: carries the messages (the push lane: FCM's servers speak HTTP/2).
    ///   - tokenTransport: carries the OAuth access-token requests, when not `transport` (the token endpoint
    ///     may be one of the account's own that speaks only HTTP/1.1).
    ///   - now: the wall clock in UNIX seconds (assertion `iat`, token expiry); tests simulate it.
    public init(
        configuration: Configuration, account: FCMServiceAccount, transport: any HTTPTransport,
        tokenTransport: (any HTTPTransport)? = nil,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) {
        self.configuration = configuration
        self.transport = transport
        projectID = configuration.projectID ?? account.projectID
        tokens = FCMAccessTokens(
            account: account, tokenURL: configuration.tokenURL ?? account.tokenURI,
            transport: tokenTransport ?? transport,
            timeout: configuration.requestTimeout, now: now)
    }

    /// How many access tokens were fetched so far.
    public var fetchedAccessTokens: Int { get async { await tokens.fetched } }

    /// Encodes and sends one push to one install, and classifies FCM's answer.
    public func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
        guard let registration = target.address.device, !registration.isEmpty else {
            return .rejected(reason: "no FCM registration token for the device")
        }
        guard let liveActivityToken = target.token, !liveActivityToken.isEmpty else {
            return .rejected(reason: "no \(target.kind.rawValue) token to send to")
        }
        let body: Data
        do {
            _ = try APNsRequestEncoder.payload(for: push)  // the same checks as APNs: FCM forwards it
            body = try FCMSendRequest(
                push, registrationToken: registration, liveActivityToken: liveActivityToken,
                expirationSeconds: configuration.expirationSeconds
            ).canonicalJSON()
        } catch let error as APNsPayloadError {
            return .rejected(reason: error.description)
        } catch {
            return .rejected(reason: "the FCM message cannot be encoded")
        }
        let accessToken: String
        do {
            accessToken = try await tokens.token()
        } catch {
            if error.code == .unreachable { return .retry(afterSeconds: nil, reason: error.description) }
            return .configurationError(reason: error.description)
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: "\(configuration.endpoint)/v1/projects/\(projectID)/messages:send",
                    headers: [
                        HTTPHeader("authorization", "Bearer " + accessToken),
                        HTTPHeader("content-type", "application/json; charset=UTF-8"),
                    ],
                    body: body, timeout: configuration.requestTimeout, maxResponseBytes: 64 << 10))
        } catch {
            return .unanswered(error, by: "FCM")
        }
        if response.status == 200 { return .delivered }
        return await classify(response)
    }

    /// Forgets the access token FCM refused; the next request fetches a new one.
    public func refreshCredentials() async { await tokens.invalidate() }

    private func classify(_ response: HTTPResponse) async -> DeliveryOutcome {
        let code = FCMErrorCode.of(
            try? JSONDecoder().decode(FCMErrorBody.self, from: response.body), status: response.status)
        return DeliveryOutcome(code.action, reason: "FCM answered \(code) (\(response.status))", answer: response)
    }
}
