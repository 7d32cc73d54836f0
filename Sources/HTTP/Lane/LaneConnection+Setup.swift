import CNGHTTP2
import Foundation
import Glibc

/// Setting a connection up: TCP, TLS with ALPN `h2` and the host verified, the HTTP/2 session, and the
/// server's first SETTINGS.
extension LaneConnection {

    static func connect(_ origin: LaneOrigin, deadline: UInt64) throws(SetupFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(origin.host, String(origin.port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw SetupFailure(
                code: .connectionFailed,
                message: "could not resolve \(origin.host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(
                address.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastError = String(cString: strerror(errno))
                Glibc.close(fd)
                continue
            }
            guard waitFor(fd, events: Int16(POLLOUT), until: deadline) else {
                Glibc.close(fd)
                throw SetupFailure(code: .timeout, message: "connecting to \(origin.authority) timed out")
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure == 0 { return fd }
            lastError = String(cString: strerror(failure))
            Glibc.close(fd)
        }
        throw SetupFailure(code: .connectionFailed, message: "could not connect to \(origin.authority): \(lastError)")
    }

    /// Waits until `fd` is ready for `events` or `deadline` passes; `false` on the deadline.
    static func waitFor(_ fd: Int32, events: Int16, until deadline: UInt64) -> Bool {
        while true {
            let now = laneNow()
            guard now < deadline else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let wait = Int32(clamping: (deadline - now) / 1_000_000 + 1)
            let ready = poll(&entry, 1, wait)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // the next call reports the error
        }
    }

    func startTLS(_ context: OpaquePointer, deadline: UInt64) throws(SetupFailure) {
        guard let ssl = SSL_new(context), let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem())
        else { throw SetupFailure(code: .tls, message: "could not set up TLS: \(Self.openSSLErrors())") }
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        SSL_set_bio(ssl, readBIO, writeBIO)
        SSL_set_connect_state(ssl)
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        SSL_set_alpn_protos(ssl, alpn, UInt32(alpn.count))
        let isAddress = origin.host.contains(":") || origin.host.allSatisfy { $0.isNumber || $0 == "." }
        if isAddress {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), origin.host)
        } else {
            cnghttp2_set_sni(ssl, origin.host)
            SSL_set1_host(ssl, origin.host)
        }
        while true {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            try flushHandshake(deadline: deadline)
            if result == 1 { break }
            let reason = SSL_get_error(ssl, result)
            guard reason == SSL_ERROR_WANT_READ else {
                let verify = SSL_get_verify_result(ssl)
                let detail =
                    verify != X509_V_OK
                    ? "certificate verify failed: \(String(cString: X509_verify_cert_error_string(verify)))"
                    : Self.openSSLErrors()
                throw SetupFailure(code: .tls, message: "TLS handshake with \(origin.authority) failed: \(detail)")
            }
            guard Self.waitFor(fd, events: Int16(POLLIN), until: deadline) else {
                throw SetupFailure(code: .timeout, message: "TLS handshake with \(origin.authority) timed out")
            }
            let count = recv(fd, readBuffer, 64 << 10, 0)
            if count == 0 {
                throw SetupFailure(
                    code: .tls, message: "\(origin.authority) closed the connection during the TLS handshake")
            }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw SetupFailure(
                    code: .tls, message: "TLS handshake with \(origin.authority): \(String(cString: strerror(errno)))")
            }
            BIO_write(readBIO, readBuffer, Int32(count))
        }
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        guard length == 2, let selected, selected[0] == UInt8(ascii: "h"), selected[1] == UInt8(ascii: "2") else {
            throw SetupFailure(code: .protocolError, message: "\(origin.authority) did not offer HTTP/2 (ALPN h2)")
        }
    }

    private func flushHandshake(deadline: UInt64) throws(SetupFailure) {
        moveEncrypted()
        while wantsWrite {
            guard writePending() else {
                throw SetupFailure(
                    code: .tls, message: "TLS handshake with \(origin.authority): \(broken ?? "write failed")")
            }
            if wantsWrite, !Self.waitFor(fd, events: Int16(POLLOUT), until: deadline) {
                throw SetupFailure(code: .timeout, message: "TLS handshake with \(origin.authority) timed out")
            }
        }
    }

    static func openSSLErrors() -> String {
        var texts: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        return texts.isEmpty ? "unknown TLS error" : texts.joined(separator: "; ")
    }

    func startSession() throws(SetupFailure) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, laneOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, laneOnData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, laneOnStreamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, laneOnFrame)
        var session: OpaquePointer?
        guard nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0 else {
            throw SetupFailure(code: .other, message: "could not start an HTTP/2 session")
        }
        self.session = session
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        flush()
        if let broken { throw SetupFailure(code: .connectionReset, message: broken) }
    }

    /// Reads until the server's SETTINGS arrive, so the first requests already keep to its stream limit.
    func awaitSettings(deadline: UInt64) throws(SetupFailure) {
        while !settled {
            if let broken { throw SetupFailure(code: .connectionReset, message: broken) }
            guard Self.waitFor(fd, events: Int16(POLLIN), until: deadline) else {
                throw SetupFailure(code: .timeout, message: "\(origin.authority) sent no HTTP/2 SETTINGS in time")
            }
            read()
            flush()
        }
        if let broken { throw SetupFailure(code: .connectionReset, message: broken) }
    }
}
