public import Foundation
import NIOConcurrencyHelpers

/// A feed on loopback: serves a recorded sequence of bodies in order, one per request (the last one again
/// once the sequence is over), and misbehaves on demand with ``inject(_:)``, without advancing the sequence:
/// after a fault the feed "heals" and goes on where it was.
///
/// With `etags`, each body is served with an `ETag` and a request whose `If-None-Match` matches the body it
/// would get is answered `304 Not Modified`.
///
/// ```swift
/// let feed = try await FeedServer.start(bodies: try FeedServer.bodies(ofSequence: path))
/// feed.inject(.status(429, retryAfter: "30"), .htmlErrorPage())
/// ```
public final class FeedServer: Sendable {
    /// Ways a feed goes wrong.
    public enum Fault: Sendable, Hashable, CustomStringConvertible {
        /// Never answer: the client's timeout ends the request.
        case hang
        /// Close the connection without an answer (also for libcurl's automatic retry on a new connection).
        case reset
        /// The reset of libcurl's retry.
        case resetRetry
        /// An error status with a small JSON body, and `Retry-After` if given.
        case status(Int, retryAfter: String? = nil)
        /// An HTML error page, as a proxy in front of the API sends it.
        case htmlErrorPage(status: Int = 200)
        /// `200` with an empty body.
        case empty
        /// `200` with the first half of the body that was due.
        case truncated
        /// `200` with JSON that no feed preset expects.
        case wrongShape
        /// `200` with a JSON body of this many bytes.
        case oversize(bytes: Int)
        /// `200` with the body that was due, a byte of its first string made invalid UTF-8 (0xFF).
        case invalidUTF8
        /// `200` with the body that was due, its first object given one more member whose key is invalid
        /// UTF-8 (`"\u{FF}x": 0`): a key no preset reads.
        case invalidUTF8Key
        /// `200` with the body that was due, its first object given its first key twice.
        case duplicateKey

        /// Every fault once (`status` as 500 and 429, the oversize body 64 KiB).
        public static let all: [Fault] = [
            .hang, .reset, .status(500), .status(429, retryAfter: "30"), .htmlErrorPage(), .empty, .truncated,
            .wrongShape, .oversize(bytes: 64 << 10),
        ]

        /// `HTTP 429 Retry-After 30`, `truncated body`, …
        public var description: String {
            switch self {
            case .hang: "hang"
            case .reset, .resetRetry: "reset"
            case .status(let s, let retryAfter): "HTTP \(s)\(retryAfter.map { " Retry-After \($0)" } ?? "")"
            case .htmlErrorPage(let s): "HTML page (\(s))"
            case .empty: "empty body"
            case .truncated: "truncated body"
            case .wrongShape: "wrong-shape JSON"
            case .oversize(let n): "\(n)-byte body"
            case .invalidUTF8: "invalid UTF-8"
            case .invalidUTF8Key: "invalid UTF-8 key"
            case .duplicateKey: "duplicate key"
            }
        }
    }

    private struct State {
        var next = 0
        var faults: [Fault] = []
        var served = 0
        var connections: Set<Int> = []
        /// When set, the body changes only on ``advance(to:)``, not on every request.
        var manual = false
    }

    /// The HTTP server underneath.
    public let server: LoopbackHTTPServer
    /// The path the feed answers on.
    public let path: String
    private let state: NIOLockedValueBox<State>

    private init(server: LoopbackHTTPServer, path: String, state: NIOLockedValueBox<State>) {
        self.server = server
        self.path = path
        self.state = state
    }

    /// Starts serving `bodies` on `path`; every `200` carries `headers`, and `Cache-Control` when given. With
    /// `manual`, every request gets the current body until ``advance(to:)`` moves on (a test that must act
    /// between two moments of a match); otherwise each request gets the next one.
    public static func start(
        bodies: [Data], path: String = "/feed", etags: Bool = false, cacheControl: String? = nil,
        headers: [(name: String, value: String)] = [("content-type", "application/json")], manual: Bool = false
    ) async throws -> FeedServer {
        precondition(!bodies.isEmpty, "a feed needs at least one body")
        var initial = State()
        initial.manual = manual
        let state = NIOLockedValueBox(initial)
        let server = try await LoopbackHTTPServer.start(mode: .http1) { request in
            guard request.path.split(separator: "?").first.map(String.init) == path else {
                return .text("no feed here", status: 404)
            }
            let (fault, index) = state.withLockedValue { s -> (Fault?, Int) in
                let reused = !s.connections.insert(request.connectionID).inserted
                if !s.faults.isEmpty {
                    let fault = s.faults.removeFirst()
                    // libcurl sends a request again, once, on a new connection when a reused one closes
                    // without an answer; the feed is still broken for that retry.
                    if fault == .reset, reused { s.faults.insert(.resetRetry, at: 0) }
                    return (fault, min(s.next, bodies.count - 1))
                }
                let index = min(s.next, bodies.count - 1)
                if !s.manual { s.next += 1 }
                s.served += 1
                return (nil, index)
            }
            if let fault { return Self.response(for: fault, due: bodies[index]) }
            var out = headers
            if let cacheControl { out.append(("cache-control", cacheControl)) }
            if etags {
                let tag = "\"\(String(StoredGzip.crc32([UInt8](bodies[index])), radix: 16))\""
                if request.header("If-None-Match") == tag {
                    return ServerResponse(
                        status: 304, headers: [("etag", tag)] + (cacheControl.map { [("cache-control", $0)] } ?? []))
                }
                out.append(("etag", tag))
            }
            return ServerResponse(status: 200, headers: out, body: bodies[index])
        }
        return FeedServer(server: server, path: path, state: state)
    }

    /// The feed's URL.
    public var url: String { server.url(path) }

    /// Serves body `step` from now on (manual mode).
    public func advance(to step: Int) {
        state.withLockedValue { $0.next = step }
    }

    /// Makes the next requests fail with these faults, in order; then the sequence goes on.
    public func inject(_ faults: Fault...) {
        state.withLockedValue { $0.faults += faults }
    }

    /// Bodies of the sequence answered so far (`304`s included, faults not).
    public var served: Int { state.withLockedValue { $0.served } }

    /// Every request received.
    public var requests: [RecordedRequest] { server.requests }

    /// Stops the server; a hanging request is closed.
    public func stop() async throws { try await server.stop() }

    /// The bodies of a replay sequence file (`Samples/sequences/*/sequence.json`), in order.
    public static func bodies(ofSequence path: String) throws -> [Data] {
        let url = URL(fileURLWithPath: path)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let steps = object?["steps"] as? [[String: Any]] ?? []
        return try steps.map { step in
            let body = step["body"] as? String ?? ""
            let file =
                body.hasPrefix("/")
                ? URL(fileURLWithPath: body)
                : url.deletingLastPathComponent()
                    .appendingPathComponent(body)
            return try Data(contentsOf: file)
        }
    }

    static func response(for fault: Fault, due body: Data) -> ServerResponse {
        let json = [("content-type", "application/json")]
        switch fault {
        case .hang: return .fault(.hang)
        case .reset, .resetRetry: return .fault(.reset)
        case .status(let status, let retryAfter):
            var headers = json
            if let retryAfter { headers.append(("retry-after", retryAfter)) }
            return ServerResponse(status: status, headers: headers, body: Data(#"{"error":"HTTP \#(status)"}"#.utf8))
        case .htmlErrorPage(let status):
            return ServerResponse(
                status: status, headers: [("content-type", "text/html")],
                body: Data("<html><head><title>502 Bad Gateway</title></head><body>Bad Gateway</body></html>".utf8))
        case .empty: return ServerResponse(status: 200, headers: json)
        case .truncated: return ServerResponse(status: 200, headers: json, body: body.prefix(body.count / 2))
        case .wrongShape:
            return ServerResponse(status: 200, headers: json, body: Data(#"[{"unexpected":true}]"#.utf8))
        case .invalidUTF8:
            var bytes = [UInt8](body)
            if let quote = bytes.firstIndex(of: UInt8(ascii: "\"")), quote + 1 < bytes.count { bytes[quote + 1] = 0xFF }
            return ServerResponse(status: 200, headers: json, body: Data(bytes))
        case .invalidUTF8Key:
            var bytes = [UInt8](body)
            if let brace = bytes.firstIndex(of: UInt8(ascii: "{")) {
                bytes.insert(contentsOf: [0x22, 0xFF, 0x78, 0x22, 0x3A, 0x30, 0x2C], at: brace + 1)
            }
            return ServerResponse(status: 200, headers: json, body: Data(bytes))
        case .duplicateKey:
            // `{"k": …` becomes `{"k": 0, "k": …`.
            var text = String(decoding: body, as: UTF8.self)
            if let brace = text.firstIndex(of: "{"), let colon = text[brace...].firstIndex(of: ":") {
                let key = text[text.index(after: brace)..<colon]
                text.insert(contentsOf: "\(key):0,", at: text.index(after: brace))
            }
            return ServerResponse(status: 200, headers: json, body: Data(text.utf8))
        case .oversize(let bytes):
            var big = Data("[".utf8)
            big.append(Data(repeating: UInt8(ascii: " "), count: max(0, bytes - 2)))
            big.append(Data("]".utf8))
            return ServerResponse(status: 200, headers: json, body: big)
        }
    }
}
