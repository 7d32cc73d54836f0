import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTP server on `127.0.0.1` and an ephemeral port, for tests: it reads each request to the end, records
/// it, asks an async handler what to answer, and answers (or misbehaves, see ``ServerResponse/Fault``).
///
/// ```swift
/// let server = try await LoopbackHTTPServer.start(mode: .http2TLS(authority)) { request in .text("ok") }
/// defer { Task { try await server.stop() } }
/// ```
public final class LoopbackHTTPServer: Sendable {
    /// The protocols the server speaks.
    public enum Mode: Sendable {
        /// HTTP/1.1 in clear text.
        case http1
        /// HTTP/1.1 over TLS (ALPN offers only `http/1.1`).
        case http1TLS(TestCertificateAuthority)
        /// HTTP/2 over TLS, negotiated with ALPN (`h2`, with `http/1.1` as the fallback).
        case http2TLS(TestCertificateAuthority)
        /// HTTP/2 in clear text with prior knowledge (h2c).
        case h2c
    }

    /// Answers one recorded request.
    public typealias Handler = @Sendable (RecordedRequest) async -> ServerResponse

    /// The mode the server was started in.
    public let mode: Mode
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    let recorder: LoopbackRecorder

    private init(mode: Mode, port: Int, channel: any Channel, recorder: LoopbackRecorder) {
        self.mode = mode
        self.port = port
        self.channel = channel
        self.recorder = recorder
    }

    /// Starts listening; `handler` is called once per complete request. With HTTP/2, the server announces
    /// `maxConcurrentStreams` in its SETTINGS (NIO's default, 100, when `nil`), and `initialWindowSize`: how
    /// many bytes of a request body a stream may send before the server's next WINDOW_UPDATE (HTTP/2's
    /// 65,535 when `nil`). `slowSetUpAfterFirst` holds every connection after the first that long before
    /// its TLS handshake begins (a far server's set-up, for a client that opens more connections);
    /// `slowSetUp` holds every connection, the first too.
    public static func start(
        mode: Mode = .http1, maxConcurrentStreams: Int? = nil, initialWindowSize: Int? = nil,
        slowSetUpAfterFirst: Duration? = nil, slowSetUp: Duration? = nil, handler: @escaping Handler
    ) async throws -> LoopbackHTTPServer {
        let recorder = LoopbackRecorder()
        let tlsContext: NIOSSLContext?
        switch mode {
        case .http1, .h2c:
            tlsContext = nil
        case .http1TLS(let authority):
            tlsContext = try NIOSSLContext(
                configuration: authority.serverTLSConfiguration(applicationProtocols: ["http/1.1"]))
        case .http2TLS(let authority):
            tlsContext = try NIOSSLContext(
                configuration: authority.serverTLSConfiguration(applicationProtocols: ["h2", "http/1.1"]))
        }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let connectionID = recorder.connectionOpened(channel)
                let makeHandler: @Sendable () -> LoopbackRequestHandler = {
                    LoopbackRequestHandler(connectionID: connectionID, recorder: recorder, handler: handler)
                }
                let configure: @Sendable () -> EventLoopFuture<Void> = {
                    Self.configure(
                        channel, mode: mode, tlsContext: tlsContext, maxConcurrentStreams: maxConcurrentStreams,
                        initialWindowSize: initialWindowSize, recorder: recorder, makeHandler: makeHandler)
                }
                guard let slow = slowSetUp ?? (connectionID > 1 ? slowSetUpAfterFirst : nil) else {
                    return configure()
                }
                return channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(slow / .nanoseconds(1)))) {}.futureResult
                    .flatMap { configure() }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return LoopbackHTTPServer(mode: mode, port: port, channel: channel, recorder: recorder)
    }

    /// Stops listening and closes every open connection.
    public func stop() async throws {
        try await channel.close()
        await withTaskGroup(of: Void.self) { group in
            for connection in recorder.openConnections() {
                group.addTask { try? await connection.close() }
            }
        }
    }

    /// `http://127.0.0.1:<port>` or `https://127.0.0.1:<port>`.
    public var baseURL: String {
        switch mode {
        case .http1, .h2c: "http://127.0.0.1:\(port)"
        case .http1TLS, .http2TLS: "https://127.0.0.1:\(port)"
        }
    }

    /// `baseURL` followed by `path` (which starts with `/`).
    public func url(_ path: String) -> String { baseURL + path }

    /// Every request received so far, in the order they were complete.
    public var requests: [RecordedRequest] { recorder.requests }

    /// The number of TCP connections accepted so far.
    public var connectionCount: Int { recorder.connectionCount }

    /// The number of TCP connections open now.
    public var openConnectionCount: Int { recorder.openConnections().count }

    /// The GOAWAY frames clients sent (HTTP/2), so far.
    public var goAwaysReceived: Int { recorder.goAways }

    /// Waits until `condition` holds, looked at again on each connection accepted or closed and each request
    /// received; false after `timeout`.
    public func wait(until condition: @Sendable () -> Bool, timeout: Duration = .seconds(30)) async -> Bool {
        await recorder.changes.wait(until: condition, timeout: timeout)
    }

    private static func configure(
        _ channel: any Channel, mode: Mode, tlsContext: NIOSSLContext?, maxConcurrentStreams: Int?,
        initialWindowSize: Int?, recorder: LoopbackRecorder,
        makeHandler: @escaping @Sendable () -> LoopbackRequestHandler
    ) -> EventLoopFuture<Void> {
        let connectionConfiguration = {
            var configuration = NIOHTTP2Handler.ConnectionConfiguration()
            if let maxConcurrentStreams {
                configuration.initialSettings =
                    configuration.initialSettings.filter { $0.parameter != .maxConcurrentStreams }
                    + [HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams)]
            }
            if let initialWindowSize {
                configuration.initialSettings =
                    configuration.initialSettings.filter { $0.parameter != .initialWindowSize }
                    + [HTTP2Setting(parameter: .initialWindowSize, value: initialWindowSize)]
            }
            return configuration
        }()
        @Sendable func http1(_ channel: any Channel) -> EventLoopFuture<Void> {
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(makeHandler())
            }
        }
        @Sendable func http2(_ channel: any Channel) -> EventLoopFuture<Void> {
            // libcurl 7.88 sends RST_STREAM(STREAM_CLOSED) for every stream whose end only END_STREAM marks
            // (no body, or no content-length). Real servers ignore resets of closed streams; NIO counts them
            // and closes the connection after 200 in 30 s, so the fake allows 10,000 a second. (NIO reserves
            // room for `maximumCount` timestamps up front: keep it modest.)
            var streamConfiguration = NIOHTTP2Handler.StreamConfiguration()
            streamConfiguration.streamResetFrameRateLimit.maximumCount = 10_000
            streamConfiguration.streamResetFrameRateLimit.windowLength = .seconds(1)
            return channel.configureHTTP2Pipeline(
                mode: .server, connectionConfiguration: connectionConfiguration,
                streamConfiguration: streamConfiguration
            ) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(HTTP2EndStreamCoalescer())
                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                    try stream.pipeline.syncOperations.addHandler(makeHandler())
                }
            }.flatMapThrowing { _ in
                try channel.pipeline.syncOperations.addHandler(GoAwayCounter(recorder: recorder))
            }
        }
        if let tlsContext {
            do {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        switch mode {
        case .http1, .http1TLS:
            return http1(channel)
        case .http2TLS:
            return channel.configureHTTP2SecureUpgrade(h2ChannelConfigurator: http2, http1ChannelConfigurator: http1)
        case .h2c:
            return http2(channel)
        }
    }
}

/// What a server saw, shared by its connections' handlers.
final class LoopbackRecorder: Sendable {
    private struct State {
        var requests: [RecordedRequest] = []
        var connectionCount = 0
        var open: [Int: any Channel] = [:]
        var goAways = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Woken on each connection accepted or closed and each request received.
    let changes = ChangeSignal()

    /// Counts a new connection and remembers it until it closes; returns its number.
    func connectionOpened(_ channel: any Channel) -> Int {
        let id = state.withLockedValue { state in
            state.connectionCount += 1
            state.open[state.connectionCount] = channel
            return state.connectionCount
        }
        changes.changed()
        channel.closeFuture.whenComplete { [state, changes] _ in
            state.withLockedValue { _ = $0.open.removeValue(forKey: id) }
            changes.changed()
        }
        return id
    }

    func record(_ request: RecordedRequest) {
        state.withLockedValue { $0.requests.append(request) }
        changes.changed()
    }

    /// A client's GOAWAY arrived.
    func goAway() {
        state.withLockedValue { $0.goAways += 1 }
        changes.changed()
    }

    var goAways: Int { state.withLockedValue { $0.goAways } }
    var requests: [RecordedRequest] { state.withLockedValue { $0.requests } }
    var connectionCount: Int { state.withLockedValue { $0.connectionCount } }
    func openConnections() -> [any Channel] { state.withLockedValue { Array($0.open.values) } }
}

/// Counts the GOAWAY frames a client sends on a connection (they come down the connection's own pipeline,
/// after the HTTP/2 handler).
private final class GoAwayCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame
    private let recorder: LoopbackRecorder

    init(recorder: LoopbackRecorder) { self.recorder = recorder }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway = unwrapInboundIn(data).payload { recorder.goAway() }
        context.fireChannelRead(data)
    }
}
