import CNGHTTP2
import Foundation
import Glibc

/// A connection's bytes: nghttp2's frames gathered, encrypted over the memory BIOs and written with one
/// `send`; what the socket has read, decrypted and handed to nghttp2.
extension LaneConnection {
    /// Whether encrypted bytes wait for the socket.
    var wantsWrite: Bool { pendingStart < pending.count }

    /// Serialises what nghttp2 has to send, encrypts it and writes as much as the socket takes.
    func flush() {
        guard broken == nil, let session else { return }
        // What the socket did not take last time goes first.
        guard writePending(), pendingStart >= pending.count else { return }
        while pendingStart >= pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            // Frames are gathered first, so TLS makes few large records and the socket gets one `send`.
            plain.removeAll(keepingCapacity: true)
            while plain.count < 256 << 10 {
                var chunk: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &chunk)
                if count < 0 {
                    return breakConnection("HTTP/2: \(String(cString: nghttp2_strerror(Int32(count))))")
                }
                guard count > 0, let chunk else { break }
                plain.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
            }
            if let ssl {
                if !plain.isEmpty {
                    plain.withUnsafeBufferPointer { bytes in _ = SSL_write(ssl, bytes.baseAddress!, Int32(bytes.count))
                    }
                }
                moveEncrypted()
            } else {
                swap(&pending, &plain)
            }
            guard pendingStart < pending.count else { return }
            guard writePending() else { return }
        }
    }

    func moveEncrypted() {
        guard let writeBIO else { return }
        let available = Int(BIO_ctrl_pending(writeBIO))
        guard available > 0 else { return }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: available))
        pending.withUnsafeMutableBufferPointer { bytes in
            _ = BIO_read(writeBIO, bytes.baseAddress! + start, Int32(available))
        }
    }

    /// Writes pending bytes until the socket would block; `false` if the connection broke.
    func writePending() -> Bool {
        while pendingStart < pending.count {
            let written = pending.withUnsafeBufferPointer { bytes in
                send(fd, bytes.baseAddress! + pendingStart, pending.count - pendingStart, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                pendingStart += written
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                return true
            } else {
                breakConnection("writing to \(origin.authority): \(String(cString: strerror(errno)))")
                return false
            }
        }
        return true
    }

    /// Reads what the socket has, decrypts it and hands it to nghttp2.
    func read() {
        guard broken == nil, let session else { return }
        while true {
            let count = recv(fd, readBuffer, 64 << 10, 0)
            if count == 0 { return breakConnection("\(origin.authority) closed the connection") }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                return breakConnection("reading from \(origin.authority): \(String(cString: strerror(errno)))")
            }
            if let ssl, let readBIO {
                BIO_write(readBIO, readBuffer, Int32(count))
                while true {
                    let plain = SSL_read(ssl, readBuffer, 64 << 10)
                    if plain > 0 {
                        guard receive(session, readBuffer, Int(plain)) else { return }
                        continue
                    }
                    let reason = SSL_get_error(ssl, plain)
                    if reason == SSL_ERROR_WANT_READ { break }
                    if reason == SSL_ERROR_ZERO_RETURN { return breakConnection("\(origin.authority) closed TLS") }
                    return breakConnection("TLS with \(origin.authority): \(Self.openSSLErrors())")
                }
            } else {
                guard receive(session, readBuffer, count) else { return }
            }
            if count < 64 << 10 { return }
        }
    }

    private func receive(_ session: OpaquePointer, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let used = nghttp2_session_mem_recv(session, bytes, count)
        guard used >= 0 else {
            breakConnection("HTTP/2 from \(origin.authority): \(String(cString: nghttp2_strerror(Int32(used))))")
            return false
        }
        return true
    }
}
