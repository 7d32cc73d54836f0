import Foundation

/// The fields, body and limits of a request of its own, or what the requests of one batch share: the
/// method, the pseudo-header fields and header fields (lower-cased, with `user-agent`, the conditional fields and `content-length`
/// added and what HTTP/2 forbids left out), encoded once into one buffer; the body; the limits.
final class LaneTemplate: @unchecked Sendable {
    let origin: LaneOrigin
    /// `scheme://authority`, the start of every request's URL (for errors).
    let base: String
    let method: String
    let body: Data?
    let timeout: Duration
    let maxResponseBytes: Int
    /// Whether a `2xx` response's header fields are kept.
    let keepsSuccessHeaders: Bool
    /// The names and values of the shared fields, back to back.
    let bytes: [UInt8]
    /// Where each field is in `bytes`: first `:method`, `:scheme` and `:authority` (`:path` is each request's
    /// own and follows them), then the shared header fields.
    let spans: [(name: Range<Int>, value: Range<Int>)]
    /// How many of `spans` are pseudo-header fields.
    static let pseudoCount = 3

    /// Header fields HTTP/2 forbids or the lane sets itself.
    private static let forbidden: [[UInt8]] = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "content-length",
        "expect",
    ].map { Array($0.utf8) }

    init(_ request: HTTPRequest, origin: LaneOrigin, base: String, keepsSuccessHeaders: Bool) {
        self.origin = origin
        self.base = base
        method = request.method
        switch request.method {
        case "POST", "PUT", "PATCH": body = request.body ?? Data()
        default: body = request.body
        }
        timeout = request.timeout
        maxResponseBytes = request.maxResponseBytes
        self.keepsSuccessHeaders = keepsSuccessHeaders
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + request.headers.count * 48)
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        spans.reserveCapacity(request.headers.count + 6)
        func add(_ name: String, _ value: String) {
            let nameStart = bytes.count
            bytes.append(contentsOf: name.utf8)
            for i in nameStart..<bytes.count where bytes[i] &- 65 < 26 { bytes[i] &+= 32 }
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            spans.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
        add(":method", request.method)
        add(":scheme", origin.tls ? "https" : "http")
        add(":authority", origin.authority)
        var agent = false
        for header in request.headers {
            let mark = bytes.count
            add(header.name, header.value)
            let name = bytes[spans[spans.count - 1].name]
            if name.elementsEqual("user-agent".utf8) {
                agent = true
            } else if Self.forbidden.contains(where: { name.elementsEqual($0) }) {
                bytes.removeSubrange(mark...)
                spans.removeLast()
            }
        }
        if !agent { add("user-agent", "LiveRelay") }
        if let validators = request.validators {
            if let tag = validators.etag { add("if-none-match", tag) }
            if let date = validators.lastModified { add("if-modified-since", date) }
        }
        if let body { add("content-length", String(body.count)) }
        self.bytes = bytes
        self.spans = spans
    }

    /// Whether a field a request adds on its own is one HTTP/2 forbids or the lane sets (`name` lower-cased).
    static func isForbidden(_ name: ArraySlice<UInt8>) -> Bool {
        forbidden.contains { name.elementsEqual($0) }
    }
}
