public import Foundation
public import HTTP
public import LiveRelayCore
import Synchronization

/// Delivers Live Activity pushes to APNs over HTTP/2 with token (JWT) authentication.
///
/// Encodes each push (refusing what APNs would refuse), sends it through the transport (the push lane, or
/// libcurl, multiplexing the requests over their connections), and classifies the answer; retries, pruning
/// and logging are the `Sender`'s. A fan-out goes to the push lane in batches: one body and one set of
/// shared header fields for many tokens. One provider token is shared by every request and replaced as
/// ``ProviderTokenPolicy`` says.
///
/// Two answers are checked before a token is dropped: `BadDeviceToken` for a token registered in the
/// other environment is this push's problem, not the token's; and `DeviceTokenNotForTopic` before any push
/// succeeded means the configured bundle id may be wrong, so it is a configuration error rather than a
/// reason to drop every token one after the other.
public final class APNsProvider: SingleTargetProvider {
    /// APNs tokens of the provider's environment, as many requests in flight as the connections carry. Over
    /// a transport that takes batches, a fan-out goes in batches of ``batchSize(inFlight:)`` tokens (a request
    /// each).
    public var traits: ProviderTraits {
        ProviderTraits(
            kind: .apns, addressing: .apnsTokens(environment: configuration.endpoint.environment),
            maxBatchSize: batches == nil ? 1 : Self.batchSize(inFlight: configuration.maxInFlight),
            maxConcurrentDeliveries: configuration.maxInFlight, concurrencyCountsTargets: true)
    }

    /// The tokens of a fan-out handed to the transport at once: up to 64, and no more than a quarter of the
    /// requests in flight. A batch's receipts are known when its last answer is, so a small batch keeps what
    /// a kill leaves sent but unrecorded (sent again at the next start) near the window, as with a request
    /// at a time.
    public static func batchSize(inFlight: Int) -> Int { max(1, min(64, inFlight / 4)) }
    /// The configuration the provider was made with.
    public let configuration: Configuration
    private let key: APNsSigningKey
    private let transport: any HTTPTransport
    /// The transport, when it takes batches.
    private let batches: (any HTTPBatchTransport)?
    private let encoder: APNsRequestEncoder
    private let now: @Sendable () -> Int
    private let state: Mutex<State>
    /// The last push's body: a fan-out sends one push to every target, so it is encoded once.
    private let lastBody = Mutex<(push: LiveActivityPush, body: Data)?>(nil)

    private struct State {
        var policy: ProviderTokenPolicy
        var token: String? {
            didSet { authorization = token.map { "bearer " + $0 } }
        }
        /// `bearer <token>`, the `authorization` header's value, made once per token.
        private(set) var authorization: String?
        var mints = 0
        var topicVerified = false
        /// The token cache was read (on first use, not in `init`: reading it may wait on a database).
        var loaded = false
        /// The mint under way: one at a time, awaited by every request that needs its token.
        var minting: Task<Result<String, APNsSigningKey.Failure>, Never>?
    }

    /// - Parameters:
    ///   - now: the wall clock in UNIX seconds (the JWT's `iat`); tests pass a simulated one.
    ///   - tokenCache: keeps the provider token across processes; a token it holds that is still young enough
    ///     is used instead of minting a new one (APNs refuses a new token within 20 minutes of the last).
    public init(
        configuration: Configuration, key: APNsSigningKey, transport: any HTTPTransport,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) },
        tokenCache: (any ProviderTokenCache)? = nil
    ) {
        self.configuration = configuration
        self.key = key
        self.transport = transport
        batches = transport as? any HTTPBatchTransport
        self.now = now
        self.tokenCache = tokenCache
        encoder = APNsRequestEncoder(
            bundleID: configuration.bundleID, expirationSeconds: configuration.expirationSeconds)
        state = Mutex(
            State(
                policy: ProviderTokenPolicy(refreshInterval: configuration.tokenRefreshInterval),
                loaded: tokenCache == nil))
    }

    private let tokenCache: (any ProviderTokenCache)?

    /// Tokens are cached per team and key.
    static func cacheKey(_ key: APNsSigningKey) -> String { "apns \(key.teamID) \(key.keyID)" }

    /// How many provider tokens have been minted so far.
    public var mintedTokens: Int { state.withLock { $0.mints } }

    /// The channels of ``Configuration/broadcast``, managed with this provider's token and transport.
    public var channels: BroadcastChannels? {
        guard let broadcast = configuration.broadcast else { return nil }
        return BroadcastChannels(
            client: APNsChannelClient(
                endpoint: broadcast.management, bundleID: configuration.bundleID, transport: transport,
                timeout: configuration.requestTimeout, authorization: { try await self.authorization() }),
            storagePolicy: broadcast.storagePolicy, deleteAfter: broadcast.deleteAfter,
            maxBroadcasts: broadcast.maxBroadcasts, window: broadcast.window)
    }

    /// Checks, encodes and sends one push, and classifies APNs' answer.
    public func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
        if target.kind == .channel { return await broadcast(push, to: target.channel, policy: target.channelPolicy) }
        if let refusal = refusal(of: target) { return refusal }
        let push = self.push(push, for: target)
        let token = target.token!
        let body: Data
        do {
            body = try self.body(for: push)
        } catch {
            return .rejected(reason: error.description)
        }
        return await send(encoder.request(for: push, token: token, body: body), to: configuration.endpoint.url) {
            classify($0, target: target)
        }
    }

    /// One push to many targets. Over a transport that takes batches (the push lane), the token targets that
    /// get the same payload go as one batch: the shared header fields and the body are encoded once, each
    /// request adds its path and `apns-id`. Otherwise, and for channels, each target on its own.
    public func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome] {
        guard batches != nil, targets.count > 1 else {
            var outcomes: [DeliveryOutcome] = []
            outcomes.reserveCapacity(targets.count)
            for target in targets { outcomes.append(await deliver(push, to: target)) }
            return outcomes
        }
        var outcomes = [DeliveryOutcome?](repeating: nil, count: targets.count)
        // A start names each target's channel in its payload: one group per channel, in order of first use.
        var groups: [(channel: String?, indices: [Int])] = []
        for (index, target) in targets.enumerated() {
            if target.kind == .channel {
                outcomes[index] = await broadcast(push, to: target.channel, policy: target.channelPolicy)
                continue
            }
            if let refusal = refusal(of: target) {
                outcomes[index] = refusal
                continue
            }
            let channel = push.event == .start ? target.channel : nil
            if let group = groups.firstIndex(where: { $0.channel == channel }) {
                groups[group].indices.append(index)
            } else {
                groups.append((channel, [index]))
            }
        }
        for group in groups {
            let push = self.push(push, for: targets[group.indices[0]])
            for (index, outcome) in zip(group.indices, await send(push, toTokens: group.indices.map { targets[$0] })) {
                outcomes[index] = outcome
            }
        }
        return outcomes.map { $0! }
    }

    /// Why a token target cannot be sent to, if it cannot.
    private func refusal(of target: PushTarget) -> DeliveryOutcome? {
        guard let token = target.token, !token.isEmpty else {
            return .rejected(reason: "no \(target.kind.rawValue) token to send to")
        }
        if let environment = target.environment, environment != configuration.endpoint.environment {
            return .rejected(
                reason: "the token was registered for \(environment), this provider sends to "
                    + "\(configuration.endpoint.environment)")
        }
        return nil
    }

    /// The push as `target` gets it: a start asks for the new activity's token, or names its channel.
    private func push(_ push: LiveActivityPush, for target: PushTarget) -> LiveActivityPush {
        var push = push
        if configuration.inputPushToken, push.event == .start, push.inputPushToken == nil { push.inputPushToken = true }
        if push.event == .start, let channel = target.channel { push.inputPushChannel = channel }
        return push
    }

    /// The push's body, or why it is refused; encoded once for the pushes of a fan-out.
    private func body(for push: LiveActivityPush) throws(APNsPayloadError) -> Data {
        if let last = lastBody.withLock({ $0 }), last.push == push { return last.body }
        let body = try encoder.body(for: push)
        lastBody.withLock { $0 = (push, body) }
        return body
    }

    /// One payload to many tokens as one batch of the transport: outcomes in the order of `targets`.
    private func send(_ push: LiveActivityPush, toTokens targets: [PushTarget]) async -> [DeliveryOutcome] {
        let body: Data
        do {
            body = try self.body(for: push)
        } catch {
            return targets.map { _ in .rejected(reason: error.description) }
        }
        let authorization: String
        do {
            authorization = try await self.authorization()
        } catch {
            return targets.map { _ in .configurationError(reason: error.description) }
        }
        var headers = encoder.sharedHeaders(for: push).map { HTTPHeader($0.name, $0.value) }
        headers.append(HTTPHeader("authorization", authorization))
        let batch = HTTPRequestBatch(
            shared: HTTPRequest(
                method: "POST", url: configuration.endpoint.url, headers: headers, body: body,
                timeout: configuration.requestTimeout, maxResponseBytes: 64 << 10),
            items: targets.map { [ids = APNsRequestEncoder.APNsIDs(push)] target in
                let token = target.token!
                return HTTPRequestBatch.Item(
                    path: "/3/device/" + token, headers: [HTTPHeader("apns-id", ids.id(token: token))])
            })
        let results = await batches!.send(batch)
        // A success in the batch shows the topic is right before its refusals are read.
        if results.contains(where: { (try? $0.get())?.status == 200 }) { state.withLock { $0.topicVerified = true } }
        // By index: a target is read only for a refusal (zipping would copy every one).
        return results.indices.map { index -> DeliveryOutcome in
            switch results[index] {
            case .success(let response) where response.status == 200: .delivered
            case .success(let response): classify(response, target: targets[index])
            case .failure(let error): .unanswered(error, by: "APNs")
            }
        }
    }

    /// One broadcast of an update or end to every activity subscribed to `channel`.
    private func broadcast(_ push: LiveActivityPush, to channel: String?, policy: Int?) async -> DeliveryOutcome {
        guard let broadcast = configuration.broadcast else {
            return .rejected(reason: "a broadcast, but the APNs provider has no channels configured")
        }
        guard let channel, !channel.isEmpty else { return .rejected(reason: "a broadcast without a channel id") }
        let body: Data
        do {
            body = try encoder.broadcastBody(for: push)
        } catch {
            return .rejected(reason: error.description)
        }
        // The channel's own policy (fixed at its creation), else the one channels are made with now.
        let stores = (policy ?? broadcast.storagePolicy.rawValue) == APNsChannelClient.StoragePolicy.mostRecent.rawValue
        let request = encoder.broadcastRequest(for: push, channel: channel, storesMessages: stores, body: body)
        return await send(request, to: broadcast.url) { response in
            let reason = Self.reason(response)
            // The channel's policy is not the one recorded for it: that channel's problem only.
            if reason == .badExpirationDate {
                return .rejected(
                    reason: "APNs answered \(reason): the channel's storage policy is not \(stores ? 1 : 0)")
            }
            // A channel id APNs cannot read: that channel is unusable, not the provider.
            if reason == .badChannelId || reason == .missingChannelId {
                return .dropToken(reason: "APNs answered \(reason) for the channel")
            }
            // Broadcast turned off for the app: no channel of it works any more, but its tokens do. The channel
            // is given up like a gone one (the activity goes on by tokens, loudly), the provider not stopped.
            if reason == .featureNotEnabled {
                return .dropToken(
                    reason: "APNs answered \(reason): broadcast is not enabled for the app's App ID "
                        + "(Apple developer portal)")
            }
            return DeliveryOutcome(reason.action, reason: "APNs answered \(reason)", answer: response)
        }
    }

    /// Sends a formed request with the provider token; 200 is delivered, anything else `classify` says.
    private func send(
        _ request: APNsRequest, to base: String, classify: (HTTPResponse) -> DeliveryOutcome
    ) async -> DeliveryOutcome {
        let authorization: String
        do {
            authorization = try await self.authorization()
        } catch {
            return .configurationError(reason: error.description)
        }
        let body = request.body
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(request.headers.count + 1)
        for header in request.headers { headers.append(HTTPHeader(header.name, header.value)) }
        headers.append(HTTPHeader("authorization", authorization))
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: request.method, url: base + request.path, headers: headers,
                    body: body, timeout: configuration.requestTimeout, maxResponseBytes: 64 << 10))
        } catch {
            return .unanswered(error, by: "APNs")
        }
        if response.status == 200 {
            state.withLock { $0.topicVerified = true }
            return .delivered
        }
        return classify(response)
    }

    /// The `authorization` header's value (`bearer <provider token>`) this provider sends now, for the other
    /// APNs requests made with the same key (``APNsChannelClient``): one token shared, minted as
    /// ``ProviderTokenPolicy`` says.
    public func authorization() async throws(APNsSigningKey.Failure) -> String {
        try await providerToken()
    }

    /// Marks the current provider token as rejected; a new one is minted for the next request unless the
    /// current one is younger than 20 minutes (see ``ProviderTokenPolicy``).
    public func refreshCredentials() async {
        let now = now()
        state.withLock { _ = $0.policy.expired(now: now) }
    }

    /// The `authorization` value (`bearer <provider token>`) to send now. The usual case takes the lock once
    /// and awaits nothing; reading the cache (once) and minting (once per refresh interval, one mint at a time,
    /// its save to the cache included) run outside the lock, and every request that needs the new token awaits
    /// the same mint.
    private func providerToken() async throws(APNsSigningKey.Failure) -> String {
        enum Step {
            case use(String)
            case load
            case wait(Task<Result<String, APNsSigningKey.Failure>, Never>)
        }
        while true {
            let now = now()
            let step = state.withLock { (state: inout State) -> Step in
                guard state.loaded else { return .load }
                if let minting = state.minting { return .wait(minting) }
                if case .use = state.policy.token(now: now), let authorization = state.authorization {
                    return .use(authorization)
                }
                let issuedAt = state.policy.issuedAt ?? now
                let minting = Task { await self.mint(issuedAt: issuedAt) }
                state.minting = minting
                return .wait(minting)
            }
            switch step {
            case .use(let authorization):
                return authorization
            case .load:
                await loadSaved()
            case .wait(let minting):
                return "bearer " + (try await minting.value.get())
            }
        }
    }

    /// Adopts the cached token if it is young enough (APNs refuses a new one within 20 minutes of the last).
    private func loadSaved() async {
        let saved = await tokenCache?.load(key: Self.cacheKey(key))
        let now = now()
        state.withLock { state in
            guard !state.loaded else { return }
            state.loaded = true
            if let saved, saved.issuedAt <= now, now - saved.issuedAt < state.policy.refreshInterval {
                state.policy.restore(issuedAt: saved.issuedAt)
                state.token = saved.token
            }
        }
    }

    /// Signs a token and saves it before any request uses it. On a store several workers share, one of them
    /// may have minted one just before: APNs would refuse a second so soon, so that one is used.
    private func mint(issuedAt: Int) async -> Result<String, APNsSigningKey.Failure> {
        let minted: String
        do {
            minted = try key.token(issuedAt: issuedAt)
        } catch {
            state.withLock { $0.minting = nil }
            return .failure(error)
        }
        let kept = await tokenCache?.save(key: Self.cacheKey(key), token: minted, issuedAt: issuedAt)
        return state.withLock { state in
            state.mints += 1
            if let kept, kept.token != minted { state.policy.restore(issuedAt: kept.issuedAt) }
            state.token = kept?.token ?? minted
            state.minting = nil
            return .success(kept?.token ?? minted)
        }
    }

    /// APNs' reason for a refusal.
    private static func reason(_ response: HTTPResponse) -> APNsErrorReason {
        let body = try? JSONDecoder().decode(ErrorBody.self, from: response.body)
        return APNsErrorReason(rawValue: body?.reason ?? "status \(response.status)", status: response.status)
    }

    private func classify(_ response: HTTPResponse, target: PushTarget) -> DeliveryOutcome {
        let reason = Self.reason(response)
        let text = "APNs answered \(reason)"
        if reason == .deviceTokenNotForTopic, !state.withLock({ $0.topicVerified }) {
            return .configurationError(
                reason: "\(text) before any push to \(encoder.topic) succeeded: check the bundle id")
        }
        return DeliveryOutcome(reason.action, reason: text, answer: response)
    }

    /// APNs' error body: `{"reason": "Unregistered", "timestamp": 1783111500000}`.
    struct ErrorBody: Decodable {
        var reason: String
        var timestamp: Int64?
    }
}
