import CNGHTTP2
import Foundation
import Glibc

/// One HTTP/2 connection of a lane thread: a non-blocking socket, OpenSSL over memory BIOs (so every write
/// is one `send` with `MSG_NOSIGNAL`, and many frames go out in one), and an nghttp2 client session. Owned
/// and driven by one thread only.
final class LaneConnection {
    /// Why a connection attempt failed: the code and words for the requests that waited on it.
    struct SetupFailure: Error {
        var code: HTTPError.Code
        var message: String
    }

    let origin: LaneOrigin
    private(set) var fd: Int32
    var ssl: OpaquePointer?
    var readBIO: OpaquePointer?
    var writeBIO: OpaquePointer?
    var session: OpaquePointer?
    /// Requests on the connection, by stream id.
    private(set) var streams: [Int32: LaneJob] = [:]
    /// Requests the server never processed (refused, or above a GOAWAY's last stream id): safe to send again.
    var refused: [LaneJob] = []
    /// Requests that ended, to resume once the thread is done with nghttp2's callbacks.
    var finished: [(LaneJob, Result<HTTPResponse, HTTPError>)] = []
    /// Bytes encrypted and not yet taken by the socket.
    var pending: [UInt8] = []
    var plain: [UInt8] = []
    var pendingStart = 0
    /// Set when the connection can carry nothing more: the reason, for the requests it held.
    private(set) var broken: String?
    /// The server's first SETTINGS arrived: its stream limit is known.
    var settled = false
    /// The server sent GOAWAY, or the lane closes the connection: no new streams; the ones in flight finish
    /// here.
    private(set) var goingAway = false
    /// The lane closes the connection by its own choice once its streams finish, with a GOAWAY of its own.
    private(set) var leaving = false
    /// A response has come back on it: the server has seen a request, and the stream limit it allows now is
    /// the one it runs with (APNs raises its limit after the first request).
    private(set) var proven = false
    let readBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 64 << 10)
    /// The path and own fields of the request being submitted, and the field list handed to nghttp2: kept,
    /// so a request costs no allocation of its own here.
    private var own: [UInt8] = []
    private var ownSpans: [(name: Range<Int>, value: Range<Int>)] = []
    private var fields: [nghttp2_nv] = []

    /// Connects (TCP, then TLS with ALPN `h2` and the host verified, for `https`) and starts the HTTP/2
    /// session; waits at most until `deadline`.
    init(origin: LaneOrigin, tls context: OpaquePointer?, deadline: UInt64) throws(SetupFailure) {
        self.origin = origin
        fd = try Self.connect(origin, deadline: deadline)
        do {
            if origin.tls, let context {
                try startTLS(context, deadline: deadline)
            }
            try startSession()
            try awaitSettings(deadline: deadline)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        readBuffer.deallocate()
    }

    /// Releases the session, TLS and the socket.
    func close() {
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }  // frees both BIOs
        ssl = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    // MARK: requests

    /// Takes no new request; the ones in flight finish, then ``goodbye()`` closes it.
    func leave() {
        (goingAway, leaving) = (true, true)
    }

    /// Tells a server the lane left of its own accord (GOAWAY, no error), as far as the socket takes it at
    /// once, and closes.
    func goodbye() {
        if leaving, broken == nil, let session, nghttp2_session_terminate_session(session, 0) == 0 { flush() }
        close()
    }

    /// Whether new requests may go on this connection.
    var acceptsRequests: Bool { broken == nil && !goingAway }

    /// Whether the connection has nothing left to do after a GOAWAY.
    var isDrained: Bool { goingAway && streams.isEmpty }

    /// Requests on the connection: in flight, and held by nghttp2 until a stream frees up.
    var load: Int { streams.count }

    /// How many streams the server allows at once (its `SETTINGS_MAX_CONCURRENT_STREAMS`).
    var streamLimit: Int {
        guard let session else { return 0 }
        return Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Whether every stream the server allows is taken: a new request would wait in nghttp2.
    var isFull: Bool { load >= streamLimit }

    /// Hands a request to nghttp2; it goes out at the next `flush`. The template's fields are used as they are;
    /// only the path and the request's own fields are copied, into buffers the connection keeps.
    func submit(_ job: LaneJob) {
        guard let session else { return job.fail(.connectionReset, "the connection was closed") }
        let template = job.template
        // The scratch buffers are worked on as locals, taken out and put back with their capacity: as the
        // class's properties, every byte's access would be checked for exclusivity at run time.
        var own = self.own
        var ownSpans = self.ownSpans
        var fields = self.fields
        (self.own, self.ownSpans, self.fields) = ([], [], [])
        defer { (self.own, self.ownSpans, self.fields) = (own, ownSpans, fields) }
        own.removeAll(keepingCapacity: true)
        ownSpans.removeAll(keepingCapacity: true)
        // `:path` and its value first, then the request's own fields.
        own.append(contentsOf: ":path".utf8)
        own.append(contentsOf: job.path.utf8)
        let pathEnd = own.count
        for header in job.headers {
            let nameStart = own.count
            own.append(contentsOf: header.name.utf8)
            for i in nameStart..<own.count where own[i] &- 65 < 26 { own[i] &+= 32 }
            if LaneTemplate.isForbidden(own[nameStart...]) {
                own.removeSubrange(nameStart...)
                continue
            }
            let valueStart = own.count
            own.append(contentsOf: header.value.utf8)
            ownSpans.append((nameStart..<valueStart, valueStart..<own.count))
        }
        let stream: Int32 = template.bytes.withUnsafeBufferPointer { shared in
            own.withUnsafeMutableBufferPointer { own in
                let sharedBase = UnsafeMutablePointer(mutating: shared.baseAddress!)
                func field(
                    _ base: UnsafeMutablePointer<UInt8>, _ name: Range<Int>, _ value: Range<Int>,
                    flags: nghttp2_nv_flag = NGHTTP2_NV_FLAG_NONE
                ) -> nghttp2_nv {
                    nghttp2_nv(
                        name: base + name.lowerBound, value: base + value.lowerBound, namelen: name.count,
                        valuelen: value.count, flags: UInt8(flags.rawValue))
                }
                fields.removeAll(keepingCapacity: true)
                for (index, span) in template.spans.enumerated() {
                    if index == LaneTemplate.pseudoCount {
                        fields.append(field(own.baseAddress!, 0..<5, 5..<pathEnd))
                    }
                    fields.append(field(sharedBase, span.name, span.value))
                }
                // A request's own fields differ from one request to the next (an `apns-id`): kept out of the
                // HPACK tables, where each would push out a field every request shares (the provider token).
                for span in ownSpans {
                    fields.append(field(own.baseAddress!, span.name, span.value, flags: NGHTTP2_NV_FLAG_NO_INDEX))
                }
                // nghttp2 copies the fields; the buffers are free again once it returns.
                if let body = template.body, !body.isEmpty {
                    var provider = nghttp2_data_provider(
                        source: nghttp2_data_source(ptr: nil), read_callback: laneReadBody)
                    return nghttp2_submit_request(session, nil, &fields, fields.count, &provider, nil)
                }
                return nghttp2_submit_request(session, nil, &fields, fields.count, nil, nil)
            }
        }
        guard stream > 0 else {
            if stream == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue {
                goingAway = true
                refused.append(job)
                return
            }
            return job.fail(.other, "HTTP/2: \(String(cString: nghttp2_strerror(stream)))")
        }
        streams[stream] = job
    }

    /// Gives up on a request (its deadline passed, or its caller cancelled): resets its stream.
    func abandon(_ job: LaneJob) -> Bool {
        guard let (stream, _) = streams.first(where: { $0.value === job }) else { return false }
        streams[stream] = nil
        if let session {
            nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, UInt32(NGHTTP2_CANCEL.rawValue))
        }
        return true
    }

    /// Takes every request still on the connection (it broke).
    func takeStreams() -> [LaneJob] {
        let jobs = streams.sorted { $0.key < $1.key }.map(\.value)
        streams.removeAll()
        return jobs
    }

    /// Marks the connection unusable with the reason.
    func breakConnection(_ reason: String) {
        if broken == nil { broken = reason }
    }

    // MARK: nghttp2's callbacks

    fileprivate func header(_ stream: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let job = streams[stream] else { return }
        if name.count == 7, name[0] == UInt8(ascii: ":") {  // :status
            var status = 0
            for byte in value where byte >= 48 && byte <= 57 { status = status * 10 + Int(byte - 48) }
            if status >= 200 {  // a final response; informational ones are left out
                job.status = status
                job.responseHeaders.removeAll()
            }
            return
        }
        guard job.keepsHeaders else { return }
        job.responseHeaders.append(
            HTTPHeader(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
    }

    fileprivate func data(_ stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let job = streams[stream] else { return }
        guard job.body.count + bytes.count <= job.template.maxResponseBytes else {
            _ = abandon(job)
            finished.append(
                (
                    job,
                    .failure(
                        HTTPError(
                            code: .responseTooLarge, url: job.url,
                            message: "the response body is larger than \(job.template.maxResponseBytes) bytes"))
                ))
            return
        }
        job.body.append(bytes.baseAddress!, count: bytes.count)
    }

    fileprivate func close(_ stream: Int32, code: UInt32) {
        guard let job = streams.removeValue(forKey: stream) else { return }
        if job.status > 0 { proven = true }
        if code == NGHTTP2_NO_ERROR.rawValue, job.status > 0 {
            finished.append(
                (
                    job,
                    .success(
                        HTTPResponse(
                            status: job.status, headers: job.responseHeaders, body: job.body, httpVersion: .http2))
                ))
        } else if code == NGHTTP2_REFUSED_STREAM.rawValue, job.status == 0 {
            refused.append(job)
        } else {
            let reason = String(cString: nghttp2_http2_strerror(code))
            finished.append(
                (
                    job,
                    .failure(
                        HTTPError(
                            code: .connectionReset, url: job.url,
                            message: "\(origin.authority) reset the stream: \(reason)"))
                ))
        }
    }

    fileprivate func goAway() {
        goingAway = true
    }

    fileprivate func settingsArrived() {
        settled = true
    }

    fileprivate func bodyBytes(
        _ stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let job = streams[stream], let body = job.template.body else {
            flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            return 0
        }
        let count = min(length, body.count - job.sentBytes)
        body.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + job.sentBytes, byteCount: count)
        }
        job.sentBytes += count
        if job.sentBytes == body.count { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
        return count
    }
}

private func connection(_ user: UnsafeMutableRawPointer?) -> LaneConnection {
    Unmanaged<LaneConnection>.fromOpaque(user!).takeUnretainedValue()
}

let laneOnHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, user in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    connection(user).header(
        frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

let laneOnData: nghttp2_on_data_chunk_recv_callback = { _, _, stream, bytes, length, user in
    connection(user).data(stream, UnsafeBufferPointer(start: bytes, count: length))
    return 0
}

let laneOnStreamClose: nghttp2_on_stream_close_callback = { _, stream, code, user in
    connection(user).close(stream, code: code)
    return 0
}

let laneOnFrame: nghttp2_on_frame_recv_callback = { _, frame, user in
    guard let frame else { return 0 }
    switch frame.pointee.hd.type {
    case UInt8(NGHTTP2_GOAWAY.rawValue):
        connection(user).goAway()
    case UInt8(NGHTTP2_SETTINGS.rawValue) where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
        connection(user).settingsArrived()
    default:
        break
    }
    return 0
}

private let laneReadBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, user in
    connection(user).bodyBytes(stream, into: buffer!, length: length, flags: flags!)
}

extension LaneConnection {
    /// The requests on the connection that `matches` says.
    func jobs(where matches: (LaneJob) -> Bool) -> [LaneJob] {
        streams.values.filter(matches)
    }
}
