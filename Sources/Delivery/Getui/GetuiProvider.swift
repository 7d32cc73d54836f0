public import Foundation
public import HTTP
public import LiveRelayCore

/// Delivers Live Activity pushes through Getui's RestAPI v2, to each target's `cid` with the activity's
/// `laId` (see ``GetuiMessage``).
///
/// One target goes to `push/single/cid`; several go to `push/single/batch/cid`, up to 200 messages per
/// request (the `Sender` splits longer lists), each with its own `request_id`. Every request carries the
/// shared auth token in a `token` header (see ``GetuiCode`` for what each answer leads to). A batch refused
/// because one `cid` is invalid is sent again one message at a time, so only that address is dropped.
public final class GetuiProvider: PushProvider {
    /// How the provider reaches Getui.
    public struct Configuration: Sendable {
        /// The API's domain, without a trailing slash or `/v2` (`https://restapi.getui.com`).
        public var endpoint: String
        /// The Getui app id (the path's `{appId}`).
        public var appID: String
        /// The Getui app key (signed into `auth`).
        public var appKey: String
        /// Milliseconds Getui keeps a message for an offline device (`settings.ttl`, at most 3 days).
        public var ttlMilliseconds: Int
        /// `push_channel.ios.auto_badge` (`+1`, `0`, …); `nil` sends none.
        public var autoBadge: String?
        /// How long the whole provider sends nothing after Getui said a per-minute limit was exceeded.
        public var rateLimitPause: Int
        /// The limit for one request.
        public var requestTimeout: Duration

        /// Creates a configuration.
        public init(
            endpoint: String = "https://restapi.getui.com", appID: String, appKey: String,
            ttlSeconds: Int = 3600, autoBadge: String? = nil, rateLimitPause: Int = 60,
            requestTimeout: Duration = .seconds(10)
        ) {
            var endpoint = endpoint
            while endpoint.hasSuffix("/") { endpoint.removeLast() }
            self.endpoint = endpoint
            self.appID = appID
            self.appKey = appKey
            ttlMilliseconds = min(max(ttlSeconds, 0), 3 * 24 * 3600) * 1000
            self.autoBadge = autoBadge
            self.rateLimitPause = max(1, rateLimitPause)
            self.requestTimeout = requestTimeout
        }
    }

    /// Each device's `cid` from the `getui` registry, with the activity's `laId`; up to 200 messages per batch.
    public let traits = ProviderTraits(
        kind: .getui, addressing: .deviceAddresses(registry: AddressSchema.getui.registry),
        maxBatchSize: GetuiBatch.maximumMessages)
    /// The configuration the provider was made with.
    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let session: GetuiSession
    private let requestID: @Sendable () -> String

    /// - Parameters:
    ///   - masterSecret: the app's MasterSecret from the Getui console.
    ///   - now: the wall clock in UNIX milliseconds (the `auth` timestamp, token expiry, pauses).
    ///   - requestID: a new `request_id` (10 to 32 characters) per message; by default 32 random hex digits.
    public init(
        configuration: Configuration, masterSecret: Secret, transport: any HTTPTransport,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970 * 1000) },
        requestID: @escaping @Sendable () -> String = { GetuiProvider.randomRequestID() }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.requestID = requestID
        session = GetuiSession(
            appID: configuration.appID, appKey: configuration.appKey, masterSecret: masterSecret,
            domain: configuration.endpoint, transport: transport, timeout: configuration.requestTimeout, now: now)
    }

    /// 32 lower-case hex digits from a random UUID.
    public static func randomRequestID() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// How many auth tokens were fetched so far.
    public var fetchedTokens: Int { get async { await session.fetched } }
    /// The domain requests go to now (the configured one until a 301 names another).
    public var domain: String { get async { await session.domain } }

    /// One request for every target with a `cid`; each target gets its outcome.
    public func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome?](repeating: nil, count: targets.count)
        var messages: [(index: Int, message: GetuiMessage)] = []
        for (index, target) in targets.enumerated() {
            guard let cid = target.address.device, !cid.isEmpty else {
                outcomes[index] = .rejected(reason: "no Getui cid for the device")
                continue
            }
            let laID = target.address.activity ?? push.activity.rawValue
            messages.append(
                (
                    index,
                    GetuiMessage(
                        push, cid: cid, laID: laID, requestID: requestID(),
                        ttlMilliseconds: configuration.ttlMilliseconds, autoBadge: configuration.autoBadge)
                ))
        }
        if !messages.isEmpty {
            for (message, outcome) in zip(messages, await send(messages.map(\.message))) {
                outcomes[message.index] = outcome
            }
        }
        return outcomes.map { $0 ?? .rejected(reason: "nothing to send") }
    }

    /// Forgets the token Getui refused (10001); the next request fetches a new one.
    public func refreshCredentials() async { await session.invalidate() }

    /// Sends messages in one request and gives each its outcome; a batch refused for an invalid `cid` is
    /// sent again one message at a time (with new `request_id`s: nothing of it was accepted).
    private func send(_ messages: [GetuiMessage]) async -> [DeliveryOutcome] {
        let outcome = await post(messages)
        guard messages.count > 1, case .dropToken = outcome else {
            return Array(repeating: outcome, count: messages.count)
        }
        var outcomes: [DeliveryOutcome] = []
        for var message in messages {
            message.requestID = requestID()
            outcomes.append(await post([message]))
        }
        return outcomes
    }

    /// One request (single or batch), following one 301 to the domain it names.
    private func post(_ messages: [GetuiMessage]) async -> DeliveryOutcome {
        if let seconds = await session.remainingPause {
            return .retry(afterSeconds: seconds, reason: "Getui rate limit: paused")
        }
        let path = messages.count == 1 ? "/push/single/cid" : "/push/single/batch/cid"
        let body: Data
        do {
            body = try messages.count == 1 ? messages[0].canonicalJSON() : GetuiBatch(messages).canonicalJSON()
        } catch {
            return .rejected(reason: "the Getui message cannot be encoded")
        }
        var moved = false
        while true {
            let token: String
            do {
                token = try await session.token()
            } catch {
                switch error.code {
                case .unreachable: return .retry(afterSeconds: nil, reason: error.description)
                case .rateLimited: return await paused(error.description)
                case .moved where !moved && error.domain != nil:
                    moved = true
                    continue
                default: return .configurationError(reason: error.description)
                }
            }
            let response: HTTPResponse
            do {
                response = try await transport.send(
                    HTTPRequest(
                        method: "POST", url: await session.base + path,
                        headers: [
                            HTTPHeader("content-type", "application/json;charset=utf-8"), HTTPHeader("token", token),
                        ],
                        body: body, timeout: configuration.requestTimeout, maxResponseBytes: 256 << 10))
            } catch {
                return .unanswered(error, by: "Getui")
            }
            let answer = try? JSONDecoder().decode(GetuiAnswer.self, from: response.body)
            let text = "Getui answered code \(answer.map { String($0.code) } ?? "none") (HTTP \(response.status))"
            switch GetuiCode.action(status: response.status, answer: answer) {
            case .delivered: return .delivered
            case .retry: return DeliveryOutcome(.retry, reason: text, answer: response)
            case .switchDomain:
                guard !moved,
                    let domain = (try? JSONDecoder().decode(GetuiAnswer.Domains.self, from: response.body))?.first
                else { return .configurationError(reason: "\(text) without a domain to use") }
                moved = true
                await session.move(to: domain)
            case .refreshToken: return .refreshCredentials(reason: text)
            case .rateLimited: return await paused(text)
            case .dropTarget: return .dropToken(reason: "\(text): target user is invalid")
            case .configuration: return .configurationError(reason: text)
            }
        }
    }

    private func paused(_ reason: String) async -> DeliveryOutcome {
        .retry(afterSeconds: await session.pause(seconds: configuration.rateLimitPause), reason: reason)
    }
}
