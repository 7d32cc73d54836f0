public import Delivery
public import Feeds
public import LiveRelayCore
public import Throttling

/// The whole configuration, decoded from one JSON file (see `docs/configuration.md`).
public struct LiveRelayConfig: Sendable, Decodable {
    /// The SQLite state file, relative to the config file's folder.
    public var state: String
    /// Rule files and folders, relative to the config file's folder.
    public var rules: [String]
    public var feeds: [FeedConfig]
    /// The default provider.
    public var provider: ProviderConfig
    /// The config has no `provider`: the default is the first of `providers`, one provider under both names.
    public var defaultIsFirstOfProviders: Bool
    /// More providers, each with an `id`, for `routes`.
    public var providers: [ProviderConfig]
    /// Which pushes go to which of `providers`.
    public var routes: [RouteConfig]
    /// How activities reach devices: tokens, a broadcast channel, or both.
    public var activityModes: [ActivityModeConfig]
    public var priority: PriorityConfig
    public var throttle: ThrottleConfig
    public var http: HTTPConfig
    public var api: APIConfig
    /// Content-state contract files, one per attributes type (relative to the config's folder).
    public var contracts: [String]
    /// Seconds the state file may keep failing before `run` exits non-zero (for a supervisor to restart it).
    public var stateFailureLimit: Int
    /// Seconds between two timer passes of `run` (timer rules come due at most this late).
    public var timerInterval: Int
    /// The state in PostgreSQL, shared by several workers; `nil`: the SQLite file of ``state``.
    public var postgres: PostgresConfig?

    enum CodingKeys: String, CodingKey {
        case state, rules, feeds, provider, providers, routes, priority, throttle, http, api, contracts, postgres
        case stateFailureLimit = "state-failure-limit"
        case timerInterval = "timer-interval"
        case activityModes = "activity-modes"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decodeIfPresent(String.self, forKey: .state) ?? "liverelay.sqlite"
        rules = try c.decodeIfPresent([String].self, forKey: .rules) ?? []
        feeds = try c.decodeIfPresent([FeedConfig].self, forKey: .feeds) ?? []
        providers = try c.decodeIfPresent([ProviderConfig].self, forKey: .providers) ?? []
        routes = try c.decodeIfPresent([RouteConfig].self, forKey: .routes) ?? []
        activityModes = try c.decodeIfPresent([ActivityModeConfig].self, forKey: .activityModes) ?? []
        // Without a `provider`, the first of `providers` is the default.
        let explicit = try c.decodeIfPresent(ProviderConfig.self, forKey: .provider)
        defaultIsFirstOfProviders = explicit == nil && !providers.isEmpty
        provider = explicit ?? providers.first ?? ProviderConfig()
        priority = try c.decodeIfPresent(PriorityConfig.self, forKey: .priority) ?? PriorityConfig()
        throttle = try c.decodeIfPresent(ThrottleConfig.self, forKey: .throttle) ?? ThrottleConfig()
        http = try c.decodeIfPresent(HTTPConfig.self, forKey: .http) ?? HTTPConfig()
        api = try c.decodeIfPresent(APIConfig.self, forKey: .api) ?? APIConfig()
        contracts = try c.decodeIfPresent([String].self, forKey: .contracts) ?? []
        stateFailureLimit = try c.decodeIfPresent(Int.self, forKey: .stateFailureLimit) ?? 300
        timerInterval = try c.decodeIfPresent(Int.self, forKey: .timerInterval) ?? 1
        postgres = try c.decodeIfPresent(PostgresConfig.self, forKey: .postgres)
    }
}

/// Where the shared state is (see `docs/scaling.md`).
public struct PostgresConfig: Sendable, Decodable {
    /// `postgres://user@host[:port]/database`, no password.
    public var url: String
    public var password: SecretReference?
    public var tls: Bool
    /// Relative to the config's folder.
    public var caFile: String?
    public var schema: String?
    /// This worker's name; host name and process id when absent.
    public var worker: String?
    /// The poller's lease; `nil`: 1.5 × the shortest feed interval, at least 3 s.
    public var leaseSeconds: Int?
    public var claimSeconds: Int
    public var claimBatch: Int
    /// Seconds after its last heartbeat at which a worker counts as gone.
    public var workerTimeout: Int

    enum CodingKeys: String, CodingKey {
        case url, password, tls, schema, worker
        case caFile = "ca-file"
        case workerTimeout = "worker-timeout"
        case leaseSeconds = "lease-seconds"
        case claimSeconds = "claim-seconds"
        case claimBatch = "claim-batch"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        password = try c.decodeIfPresent(SecretReference.self, forKey: .password)
        tls = try c.decodeIfPresent(Bool.self, forKey: .tls) ?? false
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        schema = try c.decodeIfPresent(String.self, forKey: .schema)
        worker = try c.decodeIfPresent(String.self, forKey: .worker)
        leaseSeconds = try c.decodeIfPresent(Int.self, forKey: .leaseSeconds)
        claimSeconds = try c.decodeIfPresent(Int.self, forKey: .claimSeconds) ?? 60
        claimBatch = try c.decodeIfPresent(Int.self, forKey: .claimBatch) ?? 1000
        workerTimeout = try c.decodeIfPresent(Int.self, forKey: .workerTimeout) ?? 3
    }
}

/// One polled feed.
public struct FeedConfig: Sendable, Decodable {
    public var id: String
    /// `https://…`, `http://…`, or `file:` (a relative `file:` path resolves against the config's folder).
    public var url: String
    /// Seconds between polls in `run` mode.
    public var interval: Int
    /// Seconds a request may take.
    public var timeout: Int
    /// Larger bodies are a feed error.
    public var maxBodyBytes: Int
    /// The longest wait (seconds) a server's `Retry-After` or ban may impose on the feed; `nil`: tied to
    /// the interval (`PollSchedule.Policy.defaultLongestWait`).
    public var longestWait: Int?
    /// The longest wait (seconds) a server's `max-age` may impose on the feed; `nil`: four intervals.
    public var longestMaxAge: Int?
    /// Extra request headers; a value is a string or a secret reference (`{"env": …}` / `{"file": …}`).
    public var headers: [String: HeaderValue]
    /// A generic JSON mapping; a feed has this or `preset`, not both.
    public var mapping: GenericMapping?
    /// A named preset for a known API; a feed has this or `mapping`, not both.
    public var preset: PresetConfig?

    enum CodingKeys: String, CodingKey {
        case id, url, interval, timeout, headers, mapping, preset
        case maxBodyBytes = "max-body-bytes"
        case longestWait = "longest-wait"
        case longestMaxAge = "longest-max-age"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        longestWait = try c.decodeIfPresent(Int.self, forKey: .longestWait)
        longestMaxAge = try c.decodeIfPresent(Int.self, forKey: .longestMaxAge)
        url = try c.decode(String.self, forKey: .url)
        interval = try c.decodeIfPresent(Int.self, forKey: .interval) ?? 30
        timeout = try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 10
        maxBodyBytes = try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? 8 << 20
        headers = try c.decodeIfPresent([String: HeaderValue].self, forKey: .headers) ?? [:]
        mapping = try c.decodeIfPresent(GenericMapping.self, forKey: .mapping)
        preset = try c.decodeIfPresent(PresetConfig.self, forKey: .preset)
    }
}

/// A header value written in the config, or a secret read at start-up.
public enum HeaderValue: Sendable, Hashable, Decodable {
    case plain(String)
    case secret(SecretReference)

    public init(from decoder: any Decoder) throws {
        if let s = try? decoder.singleValueContainer().decode(String.self) {
            self = .plain(s)
        } else {
            self = .secret(try SecretReference(from: decoder))
        }
    }
}

/// One provider entry (`provider`, or an entry of `providers`): the keys every kind shares, and the
/// settings of its kind (`type`), decoded by the kind's settings type from the provider table.
public struct ProviderConfig: Sendable, Decodable {
    /// The name routes use (entries of `providers`); by default the type.
    public var id: String
    /// The provider's kind (`type`): `console`, `apns`, `fcm`, `pushwoosh` or `getui`.
    public var kind: ProviderKind
    /// The app's bundle id; the APNs topic is `<bundle-id>.push-type.liveactivity`.
    public var bundleID: String
    /// Seconds after a push's timestamp during which APNs may store it for an offline device.
    public var expiration: Int
    /// Requests per second the provider accepts from LiveRelay.
    public var rate: Double
    /// Requests it accepts in a burst.
    public var burst: Double
    /// The kind's own settings.
    public var settings: any ProviderSettings

    enum CodingKeys: String, CodingKey {
        case id, type
        case bundleID = "bundle-id"
        case expiration, rate, burst
    }

    /// The console with the default bundle id: what runs when a config names no provider.
    public init(
        settings: any ProviderSettings = ConsoleProviderConfig(), bundleID: String = "com.example.liverelay",
        expiration: Int = 3600, rate: Double = 1000, burst: Double? = nil
    ) {
        kind = type(of: settings).kind
        id = kind.rawValue
        self.settings = settings
        self.bundleID = bundleID
        self.expiration = expiration
        self.rate = rate
        self.burst = burst ?? rate
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decodeIfPresent(String.self, forKey: .type).map(ProviderKind.init(rawValue:)) ?? .console
        id = try c.decodeIfPresent(String.self, forKey: .id) ?? kind.rawValue
        bundleID = try c.decodeIfPresent(String.self, forKey: .bundleID) ?? "com.example.liverelay"
        expiration = try c.decodeIfPresent(Int.self, forKey: .expiration) ?? 3600
        rate = try c.decodeIfPresent(Double.self, forKey: .rate) ?? 1000
        burst = try c.decodeIfPresent(Double.self, forKey: .burst) ?? rate
        guard let settingsType = ProviderCatalog.settings(for: kind) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "\"\(kind)\" is not a provider this build knows")
        }
        settings = try settingsType.init(from: decoder)
    }
}

/// How `auto` priorities are decided.
public struct PriorityConfig: Sendable, Decodable {
    /// `auto` rules send at priority 10 at or above this relevance (and always with an alert).
    public var autoRelevanceThreshold: Double

    enum CodingKeys: String, CodingKey {
        case autoRelevanceThreshold = "auto-relevance-threshold"
    }

    public init(autoRelevanceThreshold: Double = 75) { self.autoRelevanceThreshold = autoRelevanceThreshold }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        autoRelevanceThreshold = try c.decodeIfPresent(Double.self, forKey: .autoRelevanceThreshold) ?? 75
    }
}

/// HTTP client settings shared by all feeds and providers.
public struct HTTPConfig: Sendable, Decodable {
    /// A PEM file of extra trusted CAs (replaces the system bundle for this process). Verification stays on.
    public var caFile: String?
    /// Let the kernel merge the small writes of push requests (Nagle's algorithm) on the providers' libcurl
    /// connections: less CPU per push in a fan-out that keeps the connection full, but every request that
    /// finds it idle waits for a delayed ACK (~40 ms). Off by default; feeds never use it, nor does the
    /// nghttp2 lane (it gathers frames itself).
    public var coalesceWrites: Bool
    /// What carries the pushes of providers whose servers speak HTTP/2 (APNs).
    public var pushLane: PushLane

    /// The HTTP/2 client of the push providers.
    public enum PushLane: String, Sendable, Decodable {
        /// nghttp2 driven directly (``HTTP2Lane``): the fast one.
        case nghttp2
        /// libcurl (``CurlTransport``), as the feeds use.
        case curl
    }

    enum CodingKeys: String, CodingKey {
        case caFile = "ca-file"
        case coalesceWrites = "coalesce-writes"
        case pushLane = "push-lane"
    }

    public init(caFile: String? = nil, coalesceWrites: Bool = false, pushLane: PushLane = .nghttp2) {
        self.caFile = caFile
        self.coalesceWrites = coalesceWrites
        self.pushLane = pushLane
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        coalesceWrites = try c.decodeIfPresent(Bool.self, forKey: .coalesceWrites) ?? false
        pushLane = try c.decodeIfPresent(PushLane.self, forKey: .pushLane) ?? .nghttp2
    }
}

/// Apple's push budget as LiveRelay keeps it.
public struct ThrottleConfig: Sendable, Decodable {
    /// The priority-10 budget of activities whose type has no entry in `budgets`.
    public var budget: BudgetPolicy
    /// Budgets by attributes type.
    public var budgets: [String: BudgetPolicy]
    /// Seconds between two pushes of one activity.
    public var minimumInterval: Int
    /// Push-to-start: starts per device and attributes type per window.
    public var pushToStartLimit: Int
    public var pushToStartWindow: Int
    /// Seconds after which a device started without reporting the activity's token may get another start;
    /// `nil` (the default): never.
    public var restartAfter: Int?

    enum CodingKeys: String, CodingKey {
        case budget, budgets
        case minimumInterval = "minimum-interval"
        case pushToStart = "push-to-start"
    }

    struct PushToStart: Decodable {
        var limit: Int?
        var window: Int?
        var restartAfter: Int?

        enum CodingKeys: String, CodingKey {
            case limit, window
            case restartAfter = "restart-after"
        }
    }

    public init() {
        budget = .conservative
        budgets = [:]
        minimumInterval = 1
        pushToStartLimit = 10
        pushToStartWindow = 3600
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        budget = try c.decodeIfPresent(BudgetPolicy.self, forKey: .budget) ?? .conservative
        budgets = try c.decodeIfPresent([String: BudgetPolicy].self, forKey: .budgets) ?? [:]
        minimumInterval = try c.decodeIfPresent(Int.self, forKey: .minimumInterval) ?? 1
        let p = try c.decodeIfPresent(PushToStart.self, forKey: .pushToStart)
        pushToStartLimit = p?.limit ?? 10
        pushToStartWindow = p?.window ?? 3600
        restartAfter = p?.restartAfter
    }
}

/// The HTTP API of `liverelay run`.
public struct APIConfig: Sendable, Decodable {
    /// The address to listen on.
    public var host: String
    /// The port; 0 picks a free one (printed at start).
    public var port: Int
    /// The bearer token app backends present to register tokens; without it, registration is refused.
    public var bearerToken: SecretReference?
    /// Larger request bodies are refused with 413.
    public var maxBodyBytes: Int
    /// Seconds a request may take to arrive whole (its head and body), from the connection's start or the
    /// previous answer; a slower one (slowloris, a byte a second) is cut.
    public var requestTimeout: Int
    /// Seconds a connection may stay open with nothing read.
    public var idleTimeout: Int
    /// Connections open at once; more are closed as they come, so the API can never take the descriptors
    /// polling and delivery need.
    public var maxConnections: Int
    /// Seconds of each activity's decisions kept for its live report (`GET /v1/activities/{key}/report`);
    /// 0 keeps none.
    public var reportWindow: Int

    enum CodingKeys: String, CodingKey {
        case host, port
        case reportWindow = "report-window"
        case bearerToken = "bearer-token"
        case maxBodyBytes = "max-body-bytes"
        case requestTimeout = "request-timeout"
        case idleTimeout = "idle-timeout"
        case maxConnections = "max-connections"
    }

    public init() {
        host = "127.0.0.1"
        port = 8787
        bearerToken = nil
        maxBodyBytes = 16384
        requestTimeout = 10
        idleTimeout = 60
        maxConnections = 256
        reportWindow = 21_600
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? host
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? port
        bearerToken = try c.decodeIfPresent(SecretReference.self, forKey: .bearerToken)
        maxBodyBytes = try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? maxBodyBytes
        requestTimeout = try c.decodeIfPresent(Int.self, forKey: .requestTimeout) ?? requestTimeout
        idleTimeout = try c.decodeIfPresent(Int.self, forKey: .idleTimeout) ?? idleTimeout
        maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections) ?? maxConnections
        reportWindow = try c.decodeIfPresent(Int.self, forKey: .reportWindow) ?? reportWindow
    }
}
