import Foundation
import HTTP
import LiveRelayTesting
import Synchronization
import Testing

/// Starts an HTTP/2 + TLS loopback server and a lane trusting its CA, runs `body`, and stops both.
@discardableResult
func withLane<T>(
    connections: Int = 1, connectionsPerOrigin: Int = 1, maxConcurrentStreams: Int? = nil,
    initialWindowSize: Int? = nil, slowSetUpAfterFirst: Duration? = nil, connectTimeout: Duration = .seconds(10),
    caFile: String? = sharedAuthority.caFile,
    handler: @escaping LoopbackHTTPServer.Handler,
    _ body: (LoopbackHTTPServer, HTTP2Lane) async throws -> T
) async throws -> T {
    let server = try await LoopbackHTTPServer.start(
        mode: .http2TLS(sharedAuthority), maxConcurrentStreams: maxConcurrentStreams,
        initialWindowSize: initialWindowSize, slowSetUpAfterFirst: slowSetUpAfterFirst, handler: handler)
    let lane = try HTTP2Lane(
        configuration: HTTP2Lane.Configuration(
            caFile: caFile, connections: connections, connectionsPerOrigin: connectionsPerOrigin,
            connectTimeout: connectTimeout))
    do {
        let result = try await body(server, lane)
        lane.shutdown()
        try await server.stop()
        return result
    } catch {
        lane.shutdown()
        try? await server.stop()
        throw error
    }
}

/// Sends `count` requests to `/n/<i>` at once; the results by index.
func fanOut(
    _ lane: HTTP2Lane, _ server: LoopbackHTTPServer, count: Int, timeout: Duration = .seconds(10)
) async -> [Result<HTTPResponse, HTTPError>] {
    await withTaskGroup(of: (Int, Result<HTTPResponse, HTTPError>).self) { group in
        for index in 0..<count {
            group.addTask {
                let request = HTTPRequest(
                    method: "POST", url: server.url("/n/\(index)"), body: Data("push \(index)".utf8), timeout: timeout)
                do throws(HTTPError) {
                    return (index, .success(try await lane.send(request)))
                } catch {
                    return (index, .failure(error))
                }
            }
        }
        var results = [Result<HTTPResponse, HTTPError>?](repeating: nil, count: count)
        for await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}

/// The request bodies the server answered with 200, by path (the handler echoes its path).
func answered(_ results: [Result<HTTPResponse, HTTPError>]) -> [String] {
    results.compactMap { result in
        guard case .success(let response) = result, response.status == 200 else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }
}

/// The first few failures, for a message.
func failures(_ results: [Result<HTTPResponse, HTTPError>]) -> String {
    results.compactMap { result in
        guard case .failure(let error) = result else { return nil }
        return "\(error)"
    }.prefix(3).joined(separator: "; ")
}

/// Counts the requests a handler is answering at once, and the most there were.
final class InFlightCount: Sendable {
    private let now = Atomic<Int>(0)
    private let top = Atomic<Int>(0)

    /// The most requests answered at once so far.
    var most: Int { top.load(ordering: .relaxed) }

    /// A handler that answers each request with its path after `delay`, counting it while it waits.
    func handler(delay: Duration) -> LoopbackHTTPServer.Handler {
        { request in
            self.top.max(self.now.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
            try? await Task.sleep(for: delay)
            self.now.subtract(1, ordering: .relaxed)
            return .text(request.path)
        }
    }
}

/// A server that answers one request at a time, `each` apiece, in the order they come, whatever connection
/// brings them: what it carries a second is the same over one connection or many.
final class OneAtATime: Sendable {
    private let free = Mutex<ContinuousClock.Instant?>(nil)
    private let each: Duration

    init(each: Duration) { self.each = each }

    /// Answers each request with its path once its turn in the queue is over.
    func handler() -> LoopbackHTTPServer.Handler {
        { request in
            let done = self.free.withLock { free in
                let start = max(free ?? .now, .now)
                free = start + self.each
                return start + self.each
            }
            try? await Task.sleep(until: done, clock: .continuous)
            return .text(request.path)
        }
    }
}

/// Counts the requests to one path as the server receives them, so a test waits for one to arrive (an event)
/// instead of sleeping.
final class Arrivals: Sendable {
    private let count = Mutex(0)
    private let changes = ChangeSignal()

    /// Notes one arrival.
    func arrived() {
        count.withLock { $0 += 1 }
        changes.changed()
    }

    /// Waits until `n` have arrived in all; false after 30 s.
    func wait(for n: Int) async -> Bool { await changes.wait(until: { self.count.withLock { $0 } >= n }) }
}

/// Counts the requests the first connection receives once a second connection is open but before any request
/// has come on it: what the first carried while the second was being set up.
final class SetUpWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var _server: LoopbackHTTPServer?
    private var secondUp = false
    private var during = 0

    /// The server, set before the first request goes.
    var server: LoopbackHTTPServer? {
        get { lock.withLock { _server } }
        set { lock.withLock { _server = newValue } }
    }

    func arrived(on connection: Int) {
        let open = server?.connectionCount ?? 0
        lock.withLock {
            if connection > 1 { secondUp = true }
            if connection == 1, open >= 2, !secondUp { during += 1 }
        }
    }

    var duringSecondSetUp: Int { lock.withLock { during } }
}

/// Sends `count` requests at once (`request(index)`), each answer's body as text or the error's description,
/// in the order they finish.
func bodies(_ lane: HTTP2Lane, count: Int, _ request: @escaping @Sendable (Int) -> HTTPRequest) async -> [String] {
    await withTaskGroup(of: String.self) { group in
        for index in 0..<count {
            group.addTask {
                do throws(HTTPError) {
                    return String(decoding: try await lane.send(request(index)).body, as: UTF8.self)
                } catch {
                    return "\(error)"
                }
            }
        }
        var all: [String] = []
        for await answer in group { all.append(answer) }
        return all
    }
}

/// Server faults that the one-request and the batch tests both meet.
enum LaneFaults {
    /// A GOAWAY for the first request to `path` on the first connection; every other request answered with
    /// its path after 5 ms.
    static func goAwayOnce(at path: String) -> LoopbackHTTPServer.Handler {
        let sent = Atomic<Bool>(false)
        return { request in
            if request.path == path, request.connectionID == 1, !sent.exchange(true, ordering: .relaxed) {
                return .fault(.goAway)
            }
            try? await Task.sleep(for: .milliseconds(5))
            return .text(request.path)
        }
    }

    /// The connection closed 20 ms after the first request to `path` arrives; the first connection answers
    /// each request after 200 ms, so many are in flight when it drops. Answers are the requests' paths.
    static func dropOnce(at path: String) -> LoopbackHTTPServer.Handler {
        let drops = Atomic<Int>(0)
        return { request in
            if request.path == path, drops.add(1, ordering: .relaxed).newValue == 1 {
                try? await Task.sleep(for: .milliseconds(20))
                return .fault(.closeConnection)
            }
            if request.connectionID == 1 { try? await Task.sleep(for: .milliseconds(200)) }
            return .text(request.path)
        }
    }
}

/// A server that lowers its stream limit to 3 when asked (`/lower`), resets the stream of `resetPath`, and
/// counts the most requests it answered at once after ``lowered()``.
final class LoweringServer: Sendable {
    private let inFlight = Atomic<Int>(0)
    private let mostAfter = Atomic<Int>(0)
    private let after = Atomic<Bool>(false)

    /// The most requests answered at once since ``lowered()``.
    var most: Int { mostAfter.load(ordering: .relaxed) }

    /// Notes that the lowered limit has reached the client.
    func lowered() { after.store(true, ordering: .relaxed) }

    func handler(resetting resetPath: String? = nil) -> LoopbackHTTPServer.Handler {
        { request in
            if request.path == "/lower" {
                return ServerResponse(status: 200, body: Data("lowered".utf8), fault: .lowerStreamLimit(3))
            }
            if request.path == resetPath { return .fault(.reset) }
            let now = self.inFlight.add(1, ordering: .relaxed).newValue
            if self.after.load(ordering: .relaxed) { self.mostAfter.max(now, ordering: .relaxed) }
            try? await Task.sleep(for: .milliseconds(2))
            self.inFlight.subtract(1, ordering: .relaxed)
            return .text(request.path)
        }
    }
}
