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

/// One request on its way through a lane: created by the caller, handed to one lane thread under its lock,
/// and from then on touched only by that thread, which resumes the caller exactly once.
final class LaneJob: @unchecked Sendable {
    let request: HTTPRequest
    let origin: LaneOrigin
    let path: String
    /// When the whole exchange must be over (`laneNow()` nanoseconds).
    let deadline: UInt64
    /// Identifies the job for a cancellation.
    let id: UInt64
    private var continuation: UnsafeContinuation<Result<HTTPResponse, HTTPError>, Never>?
    /// Whether it was already sent again after its connection was lost.
    var resent = false
    /// The caller's fence, asked before the request goes out again.
    let fence: SendFence?
    /// How often servers refused it unprocessed (a GOAWAY's later streams, `REFUSED_STREAM`).
    var refusals = 0
    /// The response so far.
    var status = 0
    var headers: [HTTPHeader] = []
    var body = Data()
    /// How much of the request body nghttp2 has taken.
    var sentBytes = 0

    init(
        request: HTTPRequest, origin: LaneOrigin, path: String, id: UInt64, fence: SendFence?,
        continuation: UnsafeContinuation<Result<HTTPResponse, HTTPError>, Never>
    ) {
        self.request = request
        self.fence = fence
        self.origin = origin
        self.path = path
        self.id = id
        self.continuation = continuation
        let limit = request.timeout.components
        let nanos = max(0, limit.seconds) * 1_000_000_000 + limit.attoseconds / 1_000_000_000
        deadline = laneNow() &+ UInt64(clamping: nanos)
    }

    /// Forgets what a lost connection delivered of the response, to send it again.
    func rewind() {
        status = 0
        headers.removeAll()
        body.removeAll()
        sentBytes = 0
    }

    /// Resumes the caller; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Whether it may go out again: its fence, if it has one, still admits it.
    var mayGoAgain: Bool { fence?.admits() ?? true }

    /// Fails the request with `code`.
    func fail(_ code: HTTPError.Code, _ message: String) {
        finish(.failure(HTTPError(code: code, url: request.url, message: message)))
    }
}
