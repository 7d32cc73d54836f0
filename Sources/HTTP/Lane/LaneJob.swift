import Foundation
import Glibc

/// Where a lane connects: scheme, host and port, and the `:authority` requests carry.
struct LaneOrigin: Hashable, Sendable {
    /// `https` (TLS with ALPN `h2`) or `http` (HTTP/2 with prior knowledge).
    var tls: Bool
    /// The host name or IP address, without brackets.
    var host: String
    /// The TCP port.
    var port: Int
    /// `host[:port]` as the URL wrote it.
    var authority: String

    /// The origin and the path (with its query) of an absolute `http` or `https` URL; `nil` for anything else.
    static func split(_ url: String) -> (origin: LaneOrigin, path: String)? {
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("https://") {
            tls = true
            rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            tls = false
            rest = url.dropFirst(7)
        } else {
            return nil
        }
        let slash = rest.utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? rest.endIndex
        let authority = rest[..<slash]
        var path = String(rest[slash...])
        if path.isEmpty { path = "/" } else if path.utf8.first == UInt8(ascii: "?") { path = "/" + path }
        guard !authority.isEmpty, !authority.utf8.contains(UInt8(ascii: "@")), !path.utf8.contains(UInt8(ascii: "#"))
        else { return nil }
        var host = authority
        var port = tls ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            host = authority[..<colon]
            port = p
        }
        guard !host.isEmpty else { return nil }
        return (LaneOrigin(tls: tls, host: String(host), port: port, authority: String(authority)), path)
    }

    /// The path of `url` when it is `prefix` (a `scheme://authority` that ``split(_:)`` read) followed by a
    /// path that starts with `/`: what `split` would say of it, without reading the origin again. `nil`
    /// otherwise (another origin, or a URL to read whole).
    static func path(of url: String, after prefix: String) -> String? {
        let path = url.utf8.withContiguousStorageIfAvailable { url -> String? in
            prefix.utf8.withContiguousStorageIfAvailable { prefix -> String? in
                guard url.count > prefix.count, url[prefix.count] == UInt8(ascii: "/"),
                    memcmp(url.baseAddress!, prefix.baseAddress!, prefix.count) == 0
                else { return nil }
                let rest = UnsafeBufferPointer(rebasing: url[prefix.count...])
                guard memchr(rest.baseAddress!, Int32(UInt8(ascii: "#")), rest.count) == nil else { return nil }
                return String(decoding: rest, as: UTF8.self)
            } ?? nil
        }
        return path ?? nil
    }
}

/// The monotonic clock in nanoseconds, for deadlines the lane's thread checks.
func laneNow() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The results of one batch, filled in by the one lane thread that carries all of its requests; the caller
/// is resumed when the last comes in.
final class LaneBatchResults: @unchecked Sendable {
    private var results: [Result<HTTPResponse, HTTPError>?]
    private var remaining: Int
    private var continuation: UnsafeContinuation<[Result<HTTPResponse, HTTPError>], Never>?

    init(count: Int, continuation: UnsafeContinuation<[Result<HTTPResponse, HTTPError>], Never>) {
        results = Array(repeating: nil, count: count)
        remaining = count
        self.continuation = continuation
    }

    /// Records the result of request `index` (the first only); resumes the caller after the last.
    func record(_ index: Int, _ result: Result<HTTPResponse, HTTPError>) {
        guard results[index] == nil else { return }
        results[index] = result
        remaining -= 1
        if remaining == 0 {
            continuation?.resume(returning: results.map { $0! })
            continuation = nil
        }
    }
}

/// One request on its way through a lane: created by the caller, handed to one lane thread under its lock,
/// and from then on touched only by that thread, which hands its result over exactly once (resuming its
/// caller, or recording it in its batch).
final class LaneJob: @unchecked Sendable {
    /// Who waits for the result.
    enum Waiter {
        case caller(UnsafeContinuation<Result<HTTPResponse, HTTPError>, Never>)
        case batch(LaneBatchResults, index: Int)
    }

    let origin: LaneOrigin
    /// A request of its own, until the lane thread makes its template (on that thread: the caller only hands
    /// it over, so the thread takes in many requests at each wake).
    private var request: (HTTPRequest, base: String)?
    private var made: LaneTemplate?
    /// What the request shares with its batch, or its own fields.
    var template: LaneTemplate {
        if let made { return made }
        let (request, base) = request!
        let template = LaneTemplate(request, origin: origin, base: base, keepsSuccessHeaders: true)
        (made, self.request) = (template, nil)
        return template
    }
    let path: String
    /// Header fields of this request alone, after the template's.
    let headers: [HTTPHeader]
    /// When the whole exchange must be over (`laneNow()` nanoseconds).
    let deadline: UInt64
    /// Identifies the job for a cancellation.
    let id: UInt64
    private var waiter: Waiter?
    /// Whether it was already sent again after its connection was lost.
    var resent = false
    /// The caller's fence, asked before the request goes out again.
    let fence: SendFence?
    /// How often servers refused it unprocessed (a GOAWAY's later streams, `REFUSED_STREAM`).
    var refusals = 0
    /// The response so far.
    var status = 0
    var responseHeaders: [HTTPHeader] = []
    var body = Data()
    /// How much of the request body nghttp2 has taken.
    var sentBytes = 0
    /// When it was put on a connection's stream (`laneNow()` nanoseconds).
    var submittedAt: UInt64 = 0

    /// A request of a batch.
    init(
        template: LaneTemplate, path: String, headers: [HTTPHeader], id: UInt64, deadline: UInt64, fence: SendFence?,
        waiter: Waiter
    ) {
        made = template
        origin = template.origin
        self.path = path
        self.headers = headers
        self.id = id
        self.deadline = deadline
        self.fence = fence
        self.waiter = waiter
    }

    /// A request of its own.
    init(
        request: HTTPRequest, origin: LaneOrigin, base: String, path: String, id: UInt64, fence: SendFence?,
        waiter: Waiter
    ) {
        self.request = (request, base)
        self.origin = origin
        self.path = path
        headers = []
        self.id = id
        deadline = Self.deadline(after: request.timeout)
        self.fence = fence
        self.waiter = waiter
    }

    /// `laneNow()` plus `timeout`.
    static func deadline(after timeout: Duration) -> UInt64 {
        let limit = timeout.components
        let nanos = max(0, limit.seconds) * 1_000_000_000 + limit.attoseconds / 1_000_000_000
        return laneNow() &+ UInt64(clamping: nanos)
    }

    /// The request's URL, for errors.
    var url: String { template.base + path }

    /// Forgets what a lost connection delivered of the response, to send it again.
    func rewind() {
        status = 0
        responseHeaders.removeAll()
        body.removeAll()
        sentBytes = 0
    }

    /// Hands the result over; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        switch waiter {
        case .caller(let continuation): continuation.resume(returning: result)
        case .batch(let results, let index): results.record(index, result)
        case nil: break
        }
        waiter = nil
    }

    /// Whether it may go out again: its fence, if it has one, still admits it.
    var mayGoAgain: Bool { fence?.admits() ?? true }

    /// Fails the request with `code`.
    func fail(_ code: HTTPError.Code, _ message: String) {
        finish(.failure(HTTPError(code: code, url: url, message: message)))
    }

    /// Whether the header fields of the response under way are kept.
    var keepsHeaders: Bool { template.keepsSuccessHeaders || !(200..<300).contains(status) }
}
