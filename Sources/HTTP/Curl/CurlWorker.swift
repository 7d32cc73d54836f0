import CCurl
import Foundation
import Logging

/// One libcurl multi handle and the dedicated thread that drives it.
///
/// The thread blocks in `curl_multi_poll`. Callers never touch libcurl: `submit` appends the transfer to
/// `incoming` under `lock` and calls `curl_multi_wakeup` (the one multi call libcurl allows from any thread);
/// the thread drains the queue, adds easy handles, runs `curl_multi_perform`, and resumes each caller's
/// continuation when libcurl reports its transfer done. Cancellation is queued the same way.
///
/// `@unchecked Sendable`: `incoming`, `cancellations`, `wakeupPending` and `stopping` are guarded by
/// `lock` (an `NSLock`, which ThreadSanitizer on Linux understands). `multi`, `active` and `idleHandles`
/// are used only on the curl thread, apart from `curl_multi_wakeup`, which other threads call only with
/// `lock` held and `stopping` false (see `wakeUpLocked`). The thread frees `multi` when it stops.
final class CurlWorker: @unchecked Sendable {
    private let lock = NSLock()
    private var incoming: [CurlTransfer] = []
    private var cancellations: [CurlTransfer] = []
    private var wakeupPending = false
    private var stopping = false

    private let multi: UnsafeMutableRawPointer
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Enough easy handles are kept for every stream in flight, so a busy connection never pays for
    /// `curl_easy_init` and `curl_easy_cleanup` per request.
    private let maxIdleHandles: Int
    private let name: String
    private let logger: Logger

    /// Creates the multi handle and starts its thread.
    init(name: String, configuration: CurlTransport.Configuration, logger: Logger) throws(HTTPError) {
        guard let multi = curl_multi_init() else {
            throw HTTPError(code: .other, url: "", message: "curl_multi_init failed")
        }
        self.multi = multi
        self.name = name
        maxIdleHandles = min(
            1024, max(64, configuration.maxConcurrentStreams * max(1, configuration.maxConnectionsPerHost)))
        self.logger = logger
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, ccurl_pipe_multiplex())
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, configuration.maxConnectionsPerHost))
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        // The name is set on the thread itself: on Linux only that reaches the kernel (`top -H`, debuggers).
        let thread = Thread { [self] in
            Thread.current.name = name
            run()
        }
        thread.start()
    }

    // MARK: Any thread

    /// Hands `transfer` to the curl thread; `continuation` is resumed once, from that thread (or right here
    /// when the caller was already cancelled or the worker is stopping).
    func submit(_ transfer: CurlTransfer, continuation: UnsafeContinuation<TransferResult, Never>) {
        transfer.continuation = continuation
        let refusal: HTTPError? = lock.withLock {
            if stopping { return Self.shutdownError(transfer) }
            if transfer.cancelRequested { return Self.cancelledError(transfer) }
            incoming.append(transfer)
            wakeUpLocked()
            return nil
        }
        if let refusal { transfer.complete(.failure(refusal)) }
    }

    /// Asks the curl thread to stop `transfer` and resume its caller with ``HTTPError/Code/cancelled``.
    func cancel(_ transfer: CurlTransfer) {
        lock.withLock {
            transfer.cancelRequested = true
            guard !stopping else { return }
            cancellations.append(transfer)
            wakeUpLocked()
        }
    }

    /// Makes the thread fail every transfer with ``HTTPError/Code/shutdown``, close its connections and exit.
    /// Does not wait.
    func stop() {
        lock.withLock {
            guard !stopping else { return }
            stopping = true
            curl_multi_wakeup(multi)
        }
    }

    /// Interrupts `curl_multi_poll` unless a wakeup is already on its way. Called with `lock` held and
    /// `stopping` false: the thread frees `multi` only after it has seen `stopping` under the lock, so a
    /// wakeup never reaches a freed handle. (A wakeup is sticky: one sent while the thread is busy makes
    /// its next poll return at once.)
    private func wakeUpLocked() {
        guard !wakeupPending else { return }
        wakeupPending = true
        curl_multi_wakeup(multi)
    }

    // MARK: Curl thread

    private func run() {
        logger.debug("curl thread started", metadata: ["thread": "\(name)"])
        var running: Int32 = 0
        while true {
            let (newTransfers, cancelled, stop) = lock.withLock {
                defer {
                    incoming.removeAll(keepingCapacity: true)
                    cancellations.removeAll(keepingCapacity: true)
                    wakeupPending = false
                }
                // A transfer cancelled before the thread saw it is answered without starting it.
                return (incoming.map { ($0, $0.cancelRequested) }, cancellations, stopping)
            }
            if stop {
                for (transfer, _) in newTransfers { transfer.complete(.failure(Self.shutdownError(transfer))) }
                break
            }
            for (transfer, isCancelled) in newTransfers {
                if isCancelled {
                    transfer.complete(.failure(Self.cancelledError(transfer)))
                } else {
                    start(transfer)
                }
            }
            for transfer in cancelled where active[ObjectIdentifier(transfer)] != nil {
                finish(transfer, with: .failure(Self.cancelledError(transfer)))
            }
            let performCode = curl_multi_perform(multi, &running)
            if performCode != CURLM_OK {
                logger.error("curl_multi_perform failed", metadata: ["code": "\(performCode.rawValue)"])
            }
            collectFinished()
            // libcurl shortens the wait to its own next timeout; wakeups end it early.
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in Array(active.values) {
            finish(transfer, with: .failure(Self.shutdownError(transfer)))
        }
        for handle in idleHandles { curl_easy_cleanup(handle) }
        idleHandles.removeAll()
        // Closes the connections now rather than when the last reference goes.
        curl_multi_cleanup(multi)
        logger.debug("curl thread stopped", metadata: ["thread": "\(name)"])
    }

    private func start(_ transfer: CurlTransfer) {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            let error = HTTPError(code: .other, url: transfer.request.url, message: "curl_easy_init failed")
            transfer.complete(.failure(error))
            return
        }
        do {
            try transfer.configure(easy)
        } catch {
            recycle(easy)
            transfer.complete(.failure(error))
            return
        }
        let code = curl_multi_add_handle(multi, easy)
        guard code == CURLM_OK else {
            recycle(easy)
            let text = String(cString: curl_multi_strerror(code))
            let error = HTTPError(
                code: .other, url: transfer.request.url, message: "curl_multi_add_handle failed: \(text)")
            transfer.complete(.failure(error))
            return
        }
        transfer.easy = easy
        active[ObjectIdentifier(transfer)] = transfer
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            finish(transfer, with: transfer.result(for: code))
        }
    }

    /// Takes the transfer out of the multi handle, keeps its easy handle for reuse, and resumes the caller.
    private func finish(_ transfer: CurlTransfer, with result: TransferResult) {
        if let easy = transfer.easy {
            curl_multi_remove_handle(multi, easy)
            recycle(easy)
            transfer.easy = nil
        }
        active[ObjectIdentifier(transfer)] = nil
        transfer.complete(result)
    }

    /// Resets an easy handle (dropping every pointer into its last transfer) and keeps it for the next one.
    private func recycle(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        if idleHandles.count < maxIdleHandles {
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    private static func cancelledError(_ transfer: CurlTransfer) -> HTTPError {
        HTTPError(code: .cancelled, url: transfer.request.url, message: "\(transfer.request.method): task cancelled")
    }

    private static func shutdownError(_ transfer: CurlTransfer) -> HTTPError {
        HTTPError(
            code: .shutdown, url: transfer.request.url,
            message: "\(transfer.request.method): transport shut down before the transfer finished")
    }
}
