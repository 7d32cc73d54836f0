extension CurlTransport {
    /// How a `CurlTransport` connects. Defaults suit polling feeds and talking to push services.
    public struct Configuration: Sendable {
        /// A PEM file of CA certificates to trust *instead of* the system bundle (`CURLOPT_CAINFO`); `nil`
        /// keeps the system bundle. Tests point it at a generated CA. Verification is always on.
        public var caFile: String?
        /// Speak HTTP/2 without negotiation (h2c, "prior knowledge") to every `http://` URL. Only for servers
        /// known to accept it, such as a loopback fake; `https://` always negotiates with ALPN. libcurl before
        /// 8.0 cannot send a second request on an h2c connection, so with it each such request gets its own.
        public var http2PriorKnowledge: Bool
        /// The limit for establishing a connection (TCP and TLS), within the request's own timeout. libcurl
        /// counts it, like the request timeout, from the start of the request, so time spent queued for a free
        /// connection (see `maxConnectionsPerHost`) counts too.
        public var connectTimeout: Duration
        /// The most connections to one host per curl thread (`CURLMOPT_MAX_HOST_CONNECTIONS`); requests beyond
        /// them wait in libcurl's queue. With HTTP/2 a thread keeps one connection per host until it has
        /// `maxConcurrentStreams` in flight. `0` means no limit, which HTTP/2 does not want: libcurl 7.88 then
        /// opens a new connection for *every* request beyond the first connection's stream limit.
        public var maxConnectionsPerHost: Int
        /// The most HTTP/2 streams curl opens on one connection (`CURLMOPT_MAX_CONCURRENT_STREAMS`); the
        /// server's own limit applies too.
        public var maxConcurrentStreams: Int
        /// The number of curl threads, each with its own multi handle and connections; requests are spread
        /// round-robin. One thread carries ~20k small HTTP/2 requests per second.
        public var threads: Int
        /// The `User-Agent` sent unless a request sets its own.
        public var userAgent: String
        /// Let the kernel merge small writes (Nagle's algorithm, `CURLOPT_TCP_NODELAY` 0). libcurl 7.88 writes
        /// every HTTP/2 frame with its own `send`, three per request; merged, a fan-out costs about a third
        /// less CPU per request. The price: a lone request may wait up to one round trip for its second frame.
        /// Off by default; push providers turn it on.
        public var coalesceWrites: Bool

        /// Creates a configuration.
        public init(
            caFile: String? = nil,
            http2PriorKnowledge: Bool = false,
            connectTimeout: Duration = .seconds(10),
            maxConnectionsPerHost: Int = 4,
            maxConcurrentStreams: Int = 100,
            threads: Int = 1,
            userAgent: String = "LiveRelay",
            coalesceWrites: Bool = false
        ) {
            self.caFile = caFile
            self.http2PriorKnowledge = http2PriorKnowledge
            self.connectTimeout = connectTimeout
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxConcurrentStreams = maxConcurrentStreams
            self.threads = threads
            self.userAgent = userAgent
            self.coalesceWrites = coalesceWrites
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up and at least 1: libcurl reads 0 as "no limit".
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 1 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        guard !millis.overflow else { return Int.max }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, Int(millis.partialValue + fraction))
    }
}
