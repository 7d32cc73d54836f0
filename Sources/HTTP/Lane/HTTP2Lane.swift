import CNGHTTP2
import Foundation
import Synchronization

/// The ``HTTPTransport`` for pushes: HTTP/2 driven directly with nghttp2 (the library `h2load` is built on)
/// over OpenSSL, on dedicated threads.
///
/// Each of `configuration.connections` threads keeps long-lived connections per origin and multiplexes every
/// request it is given over them, as many streams at once as the server's `SETTINGS` allow. When the streams
/// of every connection are taken and the last connection added carried more (``LaneGrowth``: the streams,
/// not the server, are the limit), the thread opens another, up to `connectionsPerOrigin` (see
/// ``LaneThread``); the connections of a step that carried no more close again once their streams finish;
/// past the limit, nghttp2 holds the rest until streams free up, and follows a server that lowers its limit.
/// A batch (`send(_: HTTPRequestBatch)`: one push to many tokens) goes whole to one thread, its shared
/// fields encoded once, and resumes its caller once. Frames are gathered and written with one `send`;
/// request bodies are written from the caller's bytes; TLS verification is always on (the system's CAs, or
/// `caFile` instead), and `https` must negotiate `h2`. `http://` URLs speak HTTP/2 with prior knowledge
/// (loopback fakes).
///
/// What happens when things go wrong: a connection that breaks sends its requests in flight once more on a
/// new connection (a second loss fails them with ``HTTPError/Code/connectionReset``); after a GOAWAY the
/// streams the server accepted finish and the ones it did not go on a new connection; a reset stream fails
/// with ``HTTPError/Code/connectionReset``; a request past its `timeout` (queueing and connecting included)
/// is reset and fails with ``HTTPError/Code/timeout``; a cancelled caller's stream is reset and the caller
/// gets ``HTTPError/Code/cancelled``. A request is sent again only while the caller's ``SendFence`` admits it;
/// otherwise it fails with ``HTTPError/Code/connectionReset``. `shutdown()` fails queued and running requests with
/// ``HTTPError/Code/shutdown``. Responses are not decompressed: the lane asks for no content encoding.
public final class HTTP2Lane: HTTPBatchTransport {
    /// How the lane connects.
    public struct Configuration: Sendable {
        /// A PEM file of CA certificates to trust instead of the system's; verification is always on.
        public var caFile: String?
        /// Threads, each with its own connections per origin.
        public var connections: Int
        /// The most connections each thread opens to one origin, one more each time all of its connections'
        /// streams are taken and the last one added carried more. 1: one connection per thread, whatever the
        /// load.
        public var connectionsPerOrigin: Int
        /// The limit for connecting (TCP and TLS), within each request's own timeout.
        public var connectTimeout: Duration

        /// A configuration.
        public init(
            caFile: String? = nil, connections: Int = 1, connectionsPerOrigin: Int = 16,
            connectTimeout: Duration = .seconds(10)
        ) {
            self.caFile = caFile
            self.connections = connections
            self.connectionsPerOrigin = connectionsPerOrigin
            self.connectTimeout = connectTimeout
        }
    }

    /// The configuration the lane was created with.
    public let configuration: Configuration
    private let threads: [LaneThread]
    private let context: LaneTLSContext
    private let next = Atomic<UInt64>(0)
    /// Batches taken so far: each goes whole to the next thread in turn.
    private let batches = Atomic<UInt64>(0)
    /// The origin the last request named, with its URL's `scheme://authority`: a provider's requests all name
    /// the same one, so for them only the path is read.
    private let lastOrigin = Mutex<(prefix: String, origin: LaneOrigin)?>(nil)

    /// Starts the lane's threads; fails if the CA file cannot be read.
    public init(configuration: Configuration = .init()) throws(HTTPError) {
        self.configuration = configuration
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTPError(code: .tls, url: "", message: "could not create a TLS context")
        }
        cnghttp2_set_min_tls12(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded =
            configuration.caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) }
            ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else {
            SSL_CTX_free(context)
            throw HTTPError(
                code: .tls, url: "",
                message: "could not load the CA certificates from \(configuration.caFile ?? "the system")")
        }
        let shared = LaneTLSContext(context)
        self.context = shared
        threads = (0..<max(1, configuration.connections)).map {
            LaneThread(
                name: "h2-\($0)", tls: shared, connectTimeout: configuration.connectTimeout,
                connectionsPerOrigin: configuration.connectionsPerOrigin)
        }
    }

    deinit {
        // Not waiting for the threads: a lane is often released on a cooperative thread, and one of its
        // threads may be in the middle of connecting. Each ends on its own once it sees the stop.
        shutdown()
    }

    /// Sends `request` on one of the lane's connections and waits for the whole response.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        guard let (origin, prefix, path) = split(request.url) else {
            throw HTTPError(code: .invalidURL, url: request.url, message: "the HTTP/2 lane takes http and https URLs")
        }
        let id = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let thread = threads[Int(id % UInt64(threads.count))]
        let fence = SendFence.current
        let result = await withTaskCancellationHandler {
            // Unchecked: the lane's thread resumes each job exactly once (`LaneJob.finish` clears it).
            await withUnsafeContinuation { continuation in
                thread.submit(
                    CollectionOfOne(
                        LaneJob(
                            request: request, origin: origin, base: prefix, path: path, id: id, fence: fence,
                            waiter: .caller(continuation))))
            }
        } onCancel: {
            thread.cancel(id..<id + 1)
        }
        return try result.get()
    }

    /// Sends every request of `batch` on one of the lane's threads, in order, and waits for all of them.
    /// The shared fields are encoded once for the whole batch; each request adds its path and own fields.
    public func send(_ batch: HTTPRequestBatch) async -> [Result<HTTPResponse, HTTPError>] {
        guard !batch.items.isEmpty else { return [] }
        let base = batch.shared.url
        guard let (origin, prefix, root) = split(base + "/"), root == "/", prefix == base else {
            let failure = HTTPError(
                code: .invalidURL, url: base, message: "a batch's URL is a scheme and an authority, without a path")
            return batch.items.map { _ in .failure(failure) }
        }
        let count = UInt64(batch.items.count)
        let first = next.wrappingAdd(count, ordering: .relaxed).oldValue
        let thread = threads[Int(batches.wrappingAdd(1, ordering: .relaxed).oldValue % UInt64(threads.count))]
        let fence = SendFence.current
        let template = LaneTemplate(
            batch.shared, origin: origin, base: prefix, keepsSuccessHeaders: batch.keepsSuccessHeaders)
        let deadline = LaneJob.deadline(after: batch.shared.timeout)
        return await withTaskCancellationHandler {
            // Unchecked: the batch resumes its caller once, after the last of its jobs (`LaneBatchResults`).
            await withUnsafeContinuation { continuation in
                let results = LaneBatchResults(count: batch.items.count, continuation: continuation)
                thread.submit(
                    batch.items.enumerated().map { index, item in
                        LaneJob(
                            template: template, path: item.path, headers: item.headers, id: first + UInt64(index),
                            deadline: deadline, fence: fence, waiter: .batch(results, index: index))
                    })
            }
        } onCancel: {
            thread.cancel(first..<first &+ count)
        }
    }

    /// ``LaneOrigin/split(_:)``, reading only the path of a URL with the last request's origin.
    private func split(_ url: String) -> (origin: LaneOrigin, prefix: String, path: String)? {
        if let last = lastOrigin.withLock({ $0 }), let path = LaneOrigin.path(of: url, after: last.prefix) {
            return (last.origin, last.prefix, path)
        }
        guard let split = LaneOrigin.split(url) else { return nil }
        let prefix = (split.origin.tls ? "https://" : "http://") + split.origin.authority
        lastOrigin.withLock { $0 = (prefix, split.origin) }
        return (split.origin, prefix, split.path)
    }

    /// The connections open now to each origin (its `host:port`), over every thread: those taking requests
    /// and those finishing after a GOAWAY.
    public func openConnections() -> [String: Int] {
        threads.reduce(into: [:]) { total, thread in total.merge(thread.openConnections, uniquingKeysWith: +) }
    }

    /// Stops the threads; running and later requests fail with ``HTTPError/Code/shutdown``. Calling it
    /// again does nothing.
    public func shutdown() {
        for thread in threads { thread.stop() }
    }
}

/// An OpenSSL client context, shared by a lane's threads (OpenSSL allows `SSL_new` from any thread once it
/// is set up); freed with the last of them.
final class LaneTLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_CTX_free(pointer) }
}
