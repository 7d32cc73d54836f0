public import Logging
import Synchronization

/// The ``HTTPTransport`` of LiveRelay: libcurl's multi interface on dedicated threads.
///
/// Each of `configuration.threads` threads owns one multi handle, blocks in `curl_multi_poll`, and never
/// runs on Swift's cooperative pool. `send` hands the request to a thread (round-robin) and suspends until
/// that thread resumes it. HTTPS negotiates HTTP/2 with ALPN and multiplexes concurrent requests to one
/// host over one connection; connections are reused; bodies are decoded from `gzip`/`br`; TLS verification
/// is always on. Cancelling the calling task stops the transfer.
///
/// `shutdown()` (or releasing the transport) stops the threads; transfers still running then fail with
/// ``HTTPError/Code/shutdown``.
public final class CurlTransport: HTTPTransport {
    /// The configuration the transport was created with.
    public let configuration: Configuration
    private let workers: [CurlWorker]
    private let nextWorker = Atomic<UInt>(0)

    /// Starts the curl threads. Throws if libcurl cannot be initialised or lacks HTTP/2 support.
    ///
    /// The first transport created in a process runs `curl_global_init`, once.
    public init(
        configuration: Configuration = .init(),
        logger: Logger = Logger(label: "LiveRelay.HTTP", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(HTTPError) {
        try CurlGlobal.ensureInitialized()
        guard CurlGlobal.supportsHTTP2 else {
            throw HTTPError(
                code: .other, url: "", message: "libcurl was built without HTTP/2 support: \(CurlGlobal.version)")
        }
        self.configuration = configuration
        var workers: [CurlWorker] = []
        for index in 0..<max(1, configuration.threads) {
            workers.append(try CurlWorker(name: "curl-\(index)", configuration: configuration, logger: logger))
        }
        self.workers = workers
    }

    deinit {
        shutdown()
    }

    /// Sends `request` on one of the curl threads and waits for the whole response.
    ///
    /// Throws ``HTTPError`` for every failure to get a response; a cancelled task gets
    /// ``HTTPError/Code/cancelled`` once the transfer has been removed.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let index = nextWorker.wrappingAdd(1, ordering: .relaxed).oldValue
        let worker = workers[Int(index % UInt(workers.count))]
        let transfer = CurlTransfer(request: request, configuration: configuration)
        let result = await withTaskCancellationHandler {
            // Unchecked: `CurlTransfer.complete` resumes exactly once (it clears the continuation), and the
            // checked variant's bookkeeping showed up in the per-request cost of a fan-out.
            await withUnsafeContinuation { continuation in
                worker.submit(transfer, continuation: continuation)
            }
        } onCancel: {
            worker.cancel(transfer)
        }
        return try result.get()
    }

    /// Stops the curl threads without waiting for them; running and later requests fail with
    /// ``HTTPError/Code/shutdown``. Calling it again does nothing.
    public func shutdown() {
        for worker in workers { worker.stop() }
    }
}
