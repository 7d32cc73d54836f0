import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// The API's port takes connections from anyone: a connection that sends its request too slowly is cut, and
/// the connections it keeps open at once are capped, so it can never starve the worker of descriptors.
@Suite("API limits", .serialized)
struct APILimitTests {
    /// A plain TCP connection to the API (raw requests that HTTP clients would not send as they are);
    /// closed when it goes.
    final class Connection: Sendable {
        let fd: Int32

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(fd) }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
        }

        /// What the server sends until it closes the connection, or until `seconds` pass with nothing more, or
        /// (with `until`) until what it sent contains that text (read on a thread of its own); `closed` says
        /// whether it closed.
        func received(within seconds: Int, until end: String? = nil) async -> (text: String, closed: Bool) {
            await withCheckedContinuation { continuation in
                Thread {
                    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
                    setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    var text: [UInt8] = []
                    while true {
                        let n = recv(self.fd, &buffer, buffer.count, 0)
                        if n > 0 {
                            text += buffer[0..<n]
                            if let end, String(decoding: text, as: UTF8.self).contains(end) {
                                continuation.resume(returning: (String(decoding: text, as: UTF8.self), false))
                                return
                            }
                            continue
                        }
                        continuation.resume(
                            returning: (String(decoding: text, as: UTF8.self), n == 0 || errno == ECONNRESET))
                        return
                    }
                }.start()
            }
        }

        /// True when the server closes the connection within `seconds` (read on a thread of its own, so a
        /// blocking read never holds one of the threads the server runs on); what it sent before is dropped.
        func closedByServer(within seconds: Int) async -> Bool {
            await withCheckedContinuation { continuation in
                Thread {
                    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
                    setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let n = recv(self.fd, &buffer, buffer.count, 0)
                        if n > 0 { continue }
                        // 0: closed; -1: the timeout (EAGAIN) or a reset (closed too).
                        continuation.resume(returning: n == 0 || errno == ECONNRESET)
                        return
                    }
                }.start()
            }
        }
    }

    static func withRun(requestTimeout: Int = 1, _ body: (InProcessRun) async throws -> Void) async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = try DemoConfig()
        config["api"] = [
            "port": 0, "bearer-token": ["env": "LIVERELAY_TEST_BEARER"], "request-timeout": .int(requestTimeout),
            "max-connections": 3,
        ]
        try await InProcessRun.run(configPath: try config.write(to: directory), body)
    }

    /// Half a request head (slowloris), or a body sent a byte at a time: cut after `request-timeout`.
    @Test func aRequestTooSlowToArriveIsCut() async throws {
        try await Self.withRun { run in
            let head = try Connection(port: run.port)
            head.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            #expect(await head.closedByServer(within: 8), "a head that never ends is cut")

            let body = try Connection(port: run.port)
            body.send("PUT /v1/devices/a/push-to-start/T HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            // A byte every half second is the test's input (a slow client), not a wait.
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(500))
                body.send(" ")
            }
            #expect(await body.closedByServer(within: 8), "a body trickling in is cut")

            // A client that sends its request at once is answered, and may keep the connection for more.
            let (status, _) = try await run.api.request("GET", "/healthz", bearer: nil)
            #expect(status == 200 || status == 503)
        }
    }

    /// A body over `api.max-body-bytes` (16 KiB) is refused with 413 as soon as it passes the limit, on any
    /// route, chunked or with a `Content-Length`: the rest of the body is never waited for, and the
    /// connection is closed.
    @Test func aBodyOverTheLimitIsRefusedAsSoonAsItPassesIt() async throws {
        try await Self.withRun { run in
            let chunk = String(repeating: "x", count: 20 << 10)
            for path in ["/v1/devices/a/push-to-start/T", "/v1/no-such-route"] {
                let chunked = try Connection(port: run.port)
                // The body never ends: only the first 20 KiB chunk is sent, and no last chunk.
                chunked.send(
                    "PUT \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n")
                let (text, closed) = await chunked.received(within: 5)
                #expect(text.hasPrefix("HTTP/1.1 413"), "\(path): \(text.prefix(200))")
                #expect(text.contains(#"{"error":"body is larger than 16384 bytes"}"#))
                #expect(closed, "\(path): the connection is closed, the rest of the body never read")

                let announced = try Connection(port: run.port)
                announced.send("PUT \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n{\"token\":")
                let (answer, cut) = await announced.received(within: 5)
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(path): \(answer.prefix(200))")
                #expect(cut)
            }
            // A body within the limit is read as before.
            let (status, _) = try await run.api.request("GET", "/healthz", bearer: nil)
            #expect(status == 200 || status == 503)
        }
    }

    /// Three idle connections take every place: a fourth is closed at once, and the API answers again once
    /// the idle ones are cut.
    @Test func connectionsPastTheCapAreClosed() async throws {
        // The idle ones are cut `request-timeout` after their answer: 3 s leaves a loaded machine the time to
        // open the fourth while the three still hold every place.
        try await Self.withRun(requestTimeout: 3) { run in
            // Each is answered once (so the server surely holds it), then stays open and idle. Each is opened
            // just before its request: one opened earlier would sit without a request while the others are
            // answered, and could be cut for it.
            var idle: [Connection] = []
            for _ in 0..<3 {
                let connection = try Connection(port: run.port)
                connection.send("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")
                let (answer, closed) = await connection.received(within: 5, until: "\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 200") && !closed, "\(answer.prefix(200))")
                idle.append(connection)
            }
            let fourth = try Connection(port: run.port)
            fourth.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await fourth.closedByServer(within: 8))
            for connection in idle { #expect(await connection.closedByServer(within: 8)) }
            let (status, _) = try await run.api.request("GET", "/healthz", bearer: nil)
            #expect(status == 200 || status == 503)
        }
    }
}
