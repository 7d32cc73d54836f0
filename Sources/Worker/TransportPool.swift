import Delivery
import HTTP
import Synchronization

/// The transports a worker opens (libcurl for feeds, the push lane or libcurl per provider), to stop them
/// together.
final class TransportPool: Sendable {
    private let http: HTTPConfig
    private let directory: String
    private let opened = Mutex<[@Sendable () -> Void]>([])
    /// The push lanes opened, by provider.
    private let lanes = Mutex<[(provider: String, lane: HTTP2Lane)]>([])

    init(http: HTTPConfig, directory: String) {
        self.http = http
        self.directory = directory
    }

    /// A provider's transport: the nghttp2 lane for an HTTP/2 provider (unless the config says `curl`), else
    /// libcurl with its connections and streams, one connection per host per thread, the config's CA file
    /// and write coalescing.
    func open(_ shape: ProviderContext.TransportShape, provider: String) throws(HTTPError) -> any HTTPTransport {
        let caFile = http.caFile.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 }
        if shape.http2, http.pushLane == .nghttp2 {
            let lane = try HTTP2Lane(
                configuration: HTTP2Lane.Configuration(caFile: caFile, connections: shape.connections))
            opened.withLock { $0.append(lane.shutdown) }
            lanes.withLock { $0.append((provider, lane)) }
            return lane
        }
        var configuration = CurlTransport.Configuration()
        configuration.caFile = caFile
        configuration.threads = shape.connections
        configuration.maxConnectionsPerHost = 1
        configuration.maxConcurrentStreams = shape.streams
        configuration.coalesceWrites = http.coalesceWrites
        return try keep(CurlTransport(configuration: configuration))
    }

    /// The feeds' transport: the config's CA file; never coalescing writes.
    func openForFeeds() throws(HTTPError) -> CurlTransport {
        try keep(
            CurlTransport(
                configuration: CurlTransport.Configuration(
                    caFile: http.caFile.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 })))
    }

    private func keep(_ transport: CurlTransport) -> CurlTransport {
        opened.withLock { $0.append(transport.shutdown) }
        return transport
    }

    /// The connections each provider's push lane holds open now, by host (`host[:port]`).
    func pushConnections() -> [(provider: String, host: String, count: Int)] {
        lanes.withLock { $0 }.flatMap { provider, lane in
            lane.openConnections().sorted { $0.key < $1.key }.map { (provider, $0.key, $0.value) }
        }
    }

    /// Stops every transport opened.
    func shutdown() {
        for stop in opened.withLock({ $0 }) { stop() }
    }
}

/// The last failure of something that runs again and again, for the next report.
final class LastFailure: Sendable {
    private let text = Mutex<String?>(nil)

    /// Notes a failure, or `nil` for a success.
    func note(_ failure: String?) { text.withLock { $0 = failure } }

    /// The last failure, if the last run failed.
    var last: String? { text.withLock { $0 } }
}
