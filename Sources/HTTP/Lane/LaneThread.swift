import CNGHTTP2
import Foundation
import Glibc

/// One thread of an ``HTTP2Lane``: it owns its connections (up to `connectionsPerOrigin` per origin, plus
/// those finishing after a GOAWAY), blocks in `poll`, and is the only one to touch them or to resume their
/// callers. Callers hand it requests under `lock` and wake it through an eventfd only when it sleeps.
///
/// A request goes on the first connection of its origin with a stream free. When every one is full (as
/// many streams in use as its server allows), each has answered once (so its limit is the one the server
/// runs with), and the origin's ``LaneGrowth`` says more would carry more (the streams, not the server,
/// hold the requests back: steps of twice as many, while each pays), the thread opens one more, up to
/// `connectionsPerOrigin`; otherwise the request is held, in order, until a stream frees up or a connection
/// opens. So the connections follow the server's stream limit and the round trip: a far server gets more,
/// a near one that its own CPU limits keeps one. Connections stay open once made, as APNs asks of its
/// clients, except those of a step that did not pay: they take no new request, and close (with a GOAWAY)
/// once their streams finish. The thread's very first connection is made on it; every other on a helper
/// thread (its set-up takes round trips), handed over ready.
final class LaneThread: @unchecked Sendable {
    private let lock = NSLock()
    private var inbox: [LaneJob] = []
    /// Connections made by helper threads, waiting to be taken in (under `lock`).
    private var opened: [Opened] = []
    private var cancels: [Range<UInt64>] = []
    private var stopping = false
    private var sleeping = false
    private var wakePending = false
    /// The connections open to each origin (`authority`), those finishing after a GOAWAY included, as the
    /// thread last counted them (under `lock`).
    private var openCounts: [String: Int] = [:]
    private let wakeFD: Int32
    private let tls: LaneTLSContext
    private let connectTimeout: Duration
    private let connectionsPerOrigin: Int

    // Thread-confined.
    /// The connections taking new requests, by origin, in the order they were opened.
    private var active: [LaneOrigin: [LaneConnection]] = [:]
    private var draining: [LaneConnection] = []
    private var waiting: [(origin: LaneOrigin, job: LaneJob)] = []
    /// Requests of an origin whose connections have no stream free, in the order they came.
    private var held: [LaneOrigin: [LaneJob]] = [:]
    /// After a failed attempt at one more connection to an origin, when the next may be made.
    private var nextGrowth: [LaneOrigin: UInt64] = [:]
    /// The origins with one more connection being made by a helper thread.
    private var opening: Set<LaneOrigin> = []
    /// What each origin's connections carry: whether one more would carry more.
    private var growth: [LaneOrigin: LaneGrowth] = [:]
    private var nextTimeoutScan: UInt64 = 0

    init(name: String, tls: LaneTLSContext, connectTimeout: Duration, connectionsPerOrigin: Int) {
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.connectionsPerOrigin = max(1, connectionsPerOrigin)
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    deinit { Glibc.close(wakeFD) }

    /// The connections open to each origin (`authority`): those taking requests and those finishing.
    var openConnections: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return openCounts
    }

    /// Queues requests, in order; fails them at once after `stop`.
    func submit(_ jobs: some Collection<LaneJob>) {
        lock.lock()
        if stopping {
            lock.unlock()
            for job in jobs { job.fail(.shutdown, "the HTTP/2 lane was shut down") }
            return
        }
        inbox.append(contentsOf: jobs)
        let wake = sleeping && !wakePending
        if wake { wakePending = true }
        lock.unlock()
        if wake { signal() }
    }

    /// Stops the requests `ids` that are still queued or in flight; their callers get `cancelled`.
    func cancel(_ ids: Range<UInt64>) {
        lock.lock()
        guard !stopping else { return lock.unlock() }
        cancels.append(ids)
        let wake = sleeping && !wakePending
        if wake { wakePending = true }
        lock.unlock()
        if wake { signal() }
    }

    /// Stops the thread: queued and running requests fail with ``HTTPError/Code/shutdown``.
    func stop() {
        lock.lock()
        let first = !stopping
        stopping = true
        lock.unlock()
        if first { signal() }
    }

    private func signal() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: the loop

    private func run() {
        var fds: [pollfd] = []
        var polled: [LaneConnection] = []
        while true {
            lock.lock()
            let incoming = inbox
            inbox.removeAll(keepingCapacity: true)
            let cancelled = cancels
            cancels.removeAll()
            let made = opened
            opened.removeAll()
            let stop = stopping
            lock.unlock()
            for connection in made { takeIn(connection) }
            if stop { return shutDown() }
            for job in incoming { waiting.append((job.origin, job)) }
            for ids in cancelled { cancel(ids: ids) }
            let now = laneNow()
            if now >= nextTimeoutScan {
                expire(now)
                nextTimeoutScan = now + 50_000_000
            }
            submitWaiting()
            for connection in connections { connection.flush() }
            for connection in connections { settle(connection) }

            fds.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            for connection in connections {
                fds.append(
                    pollfd(
                        fd: connection.fd, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0),
                        revents: 0))
                polled.append(connection)
            }
            var timeout: Int32 = waiting.isEmpty ? (!held.isEmpty || polled.contains { $0.load > 0 } ? 50 : -1) : 0
            if timeout != 0 {
                lock.lock()
                let idle = inbox.isEmpty && cancels.isEmpty && opened.isEmpty && !stopping
                if idle { sleeping = true } else { timeout = 0 }
                lock.unlock()
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if timeout != 0 {
                lock.lock()
                sleeping = false
                lock.unlock()
            }
            guard ready > 0 else { continue }
            if fds[0].revents != 0 {
                var value: UInt64 = 0
                _ = Glibc.read(wakeFD, &value, 8)
                lock.lock()
                wakePending = false
                lock.unlock()
            }
            for (index, connection) in polled.enumerated() where fds[index + 1].revents != 0 {
                connection.read()
                connection.flush()
                settle(connection)
            }
        }
    }

    private var connections: [LaneConnection] { active.values.flatMap { $0 } + draining }

    /// Puts the held and then the waiting requests on their origin's connections, in order, as far as their
    /// streams allow (connecting first where there is none, or where every one is full and has answered).
    private func submitWaiting() {
        if !held.isEmpty {
            for origin in Array(held.keys) {
                let jobs = held.removeValue(forKey: origin)!
                place(jobs[...], origin)
            }
        }
        guard !waiting.isEmpty else { return }
        let jobs = waiting
        waiting.removeAll(keepingCapacity: true)
        var index = 0
        while index < jobs.count {
            // A run of requests to one origin goes together.
            let origin = jobs[index].origin
            var end = index + 1
            while end < jobs.count, jobs[end].origin == origin { end += 1 }
            place(jobs[index..<end].map(\.job)[...], origin)
            index = end
        }
    }

    /// Puts `jobs` of `origin` on its connections, opening connections as the thread may; the rest are held,
    /// after the ones already held.
    private func place(_ jobs: ArraySlice<LaneJob>, _ origin: LaneOrigin) {
        var jobs = jobs
        if held[origin] == nil {
            var now = laneNow()
            while let job = jobs.first {
                if let free = active[origin]?.first(where: { $0.acceptsRequests && !$0.isFull }) {
                    job.submittedAt = now
                    free.submit(job)
                    jobs.removeFirst()
                    continue
                }
                let pool = active[origin] ?? []
                guard pool.count < connectionsPerOrigin, pool.allSatisfy(\.proven), !opening.contains(origin),
                    pool.isEmpty || nextGrowth[origin].map({ now >= $0 }) ?? true,
                    pool.isEmpty || growth[origin]?.hold(at: now) == nil
                else { break }
                growth[origin, default: LaneGrowth()].growing()
                // Made beside the thread unless it has none at all; the requests wait for it (or a stream).
                guard pool.isEmpty, !active.values.contains(where: { !$0.isEmpty }), draining.isEmpty else {
                    open(origin)
                    break
                }
                do {
                    let deadline = min(job.deadline, laneNow() &+ UInt64(connectTimeoutNanos))
                    let made = try LaneConnection(
                        origin: origin, tls: origin.tls ? tls.pointer : nil, deadline: deadline)
                    active[origin, default: []].append(made)
                    // Its requests are timed from now, not from before its set-up.
                    now = laneNow()
                    counted(origin, at: now)
                } catch {
                    guard pool.isEmpty else {
                        // The requests wait for the connections there are; another try in a second.
                        nextGrowth[origin] = laneNow() &+ 1_000_000_000
                        break
                    }
                    for job in jobs { job.fail(error.code, error.message) }
                    return
                }
            }
        }
        if !jobs.isEmpty { held[origin, default: []].append(contentsOf: jobs) }
    }

    /// A connection a helper thread made (or could not make) for `origin`.
    private struct Opened: @unchecked Sendable {
        var origin: LaneOrigin
        var result: Result<LaneConnection, LaneConnection.SetupFailure>
    }

    /// Makes one more connection to `origin` on a helper thread, which hands it over through `opened` and
    /// wakes the thread; after `stop`, the helper closes what it made.
    private func open(_ origin: LaneOrigin) {
        opening.insert(origin)
        let deadline = laneNow() &+ UInt64(connectTimeoutNanos)
        let context = Opened(origin: origin, result: .failure(.init(code: .shutdown, message: "")))
        let tls = self.tls
        Thread.detachNewThread { [self] in
            var made = context
            do throws(LaneConnection.SetupFailure) {
                made.result = .success(
                    try LaneConnection(origin: origin, tls: origin.tls ? tls.pointer : nil, deadline: deadline))
            } catch {
                made.result = .failure(error)
            }
            lock.lock()
            guard !stopping else {
                lock.unlock()
                if case .success(let connection) = made.result { connection.close() }
                return
            }
            opened.append(made)
            let wake = sleeping && !wakePending
            if wake { wakePending = true }
            lock.unlock()
            if wake { signal() }
        }
    }

    /// Takes in a connection a helper made: the held requests go on it at the next placing. One that failed
    /// leaves the requests on the connections there are, and the next try for a second later; with none,
    /// the requests fail with its error.
    private func takeIn(_ made: Opened) {
        opening.remove(made.origin)
        switch made.result {
        case .success(let connection):
            active[made.origin, default: []].append(connection)
            counted(made.origin, at: laneNow())
            // Made for a step that was judged, and did not pay, while it was being set up.
            if let surplus = growth[made.origin]?.surplus, surplus > 0 { shed(surplus, of: made.origin) }
        case .failure(let error) where active[made.origin]?.isEmpty ?? true:
            for job in held.removeValue(forKey: made.origin) ?? [] { job.fail(error.code, error.message) }
        case .failure: nextGrowth[made.origin] = laneNow() &+ 1_000_000_000
        }
    }

    private var connectTimeoutNanos: Int64 {
        let parts = connectTimeout.components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }

    /// Resumes the callers of finished requests, sends refused ones again, and retires a connection that
    /// broke (its requests go again once on a new connection) or finished after a GOAWAY.
    private func settle(_ connection: LaneConnection) {
        let finished = connection.finished
        connection.finished.removeAll()
        // Answers count towards what the connections carry only while that is being measured.
        if !finished.isEmpty, var carried = growth[connection.origin], carried.measures {
            let now = laneNow()
            let inFlight = (active[connection.origin] ?? []).reduce(finished.count) { $0 + $1.load }
            let waiting = held[connection.origin] != nil
            for case (let job, .success) in finished {
                carried.answered(sentAt: job.submittedAt, at: now, inFlight: inFlight, waiting: waiting)
            }
            growth[connection.origin] = carried
            if carried.surplus > 0 { shed(carried.surplus, of: connection.origin) }
        }
        for (job, result) in finished { job.finish(result) }
        for job in connection.refused {
            job.refusals += 1
            if job.refusals > 3 {
                job.fail(.connectionReset, "\(connection.origin.authority) refused the request \(job.refusals) times")
            } else if !job.mayGoAgain {
                job.fail(.connectionReset, "\(connection.origin.authority) refused the request; \(Self.fenced)")
            } else {
                job.rewind()
                waiting.append((connection.origin, job))
            }
        }
        connection.refused.removeAll()
        if connection.goingAway, take(connection) {
            draining.append(connection)
        }
        if let reason = connection.broken {
            for job in connection.takeStreams() {
                if job.resent {
                    job.fail(.connectionReset, reason)
                } else if !job.mayGoAgain {
                    job.fail(.connectionReset, "\(reason); \(Self.fenced)")
                } else {
                    job.resent = true
                    job.rewind()
                    waiting.append((connection.origin, job))
                }
            }
            retire(connection)
        } else if connection.isDrained {
            retire(connection)
        }
    }

    private static let fenced = "not sent again: the caller's fence no longer admits it"

    /// Removes `connection` from those taking new requests; `false` if it was not one of them.
    private func take(_ connection: LaneConnection) -> Bool {
        guard var pool = active[connection.origin], let index = pool.firstIndex(where: { $0 === connection }) else {
            return false
        }
        pool.remove(at: index)
        active[connection.origin] = pool.isEmpty ? nil : pool
        counted(connection.origin, at: laneNow())
        return true
    }

    /// Closes the `count` connections of `origin` opened last, once their streams finish: a step of the
    /// origin's ``LaneGrowth`` that did not pay.
    private func shed(_ count: Int, of origin: LaneOrigin) {
        for connection in (active[origin] ?? []).suffix(count) where take(connection) {
            connection.leave()
            draining.append(connection)
        }
    }

    /// Tells the origin's ``LaneGrowth`` how many connections it has now.
    private func counted(_ origin: LaneOrigin, at now: UInt64) {
        growth[origin, default: LaneGrowth()].opened(active[origin]?.count ?? 0, at: now)
        publish(origin)
    }

    /// Counts the connections open to `origin` for ``openConnections``.
    private func publish(_ origin: LaneOrigin) {
        let count = (active[origin]?.count ?? 0) + draining.count(where: { $0.origin == origin })
        lock.lock()
        openCounts[origin.authority] = count
        lock.unlock()
    }

    private func retire(_ connection: LaneConnection) {
        // One taking requests is counted by `take`; one finishing, once it is out of `draining`.
        if !take(connection) {
            draining.removeAll { $0 === connection }
            publish(connection.origin)
        }
        for job in connection.takeStreams() {
            job.fail(.connectionReset, connection.broken ?? "the connection was closed")
        }
        connection.goodbye()
    }

    /// Fails the requests whose deadline has passed.
    private func expire(_ now: UInt64) {
        fail(where: { $0.deadline <= now }, .timeout) { "no response within \($0.template.timeout)" }
    }

    private func cancel(ids: Range<UInt64>) {
        fail(where: { ids.contains($0.id) }, .cancelled) { _ in "the request was cancelled" }
    }

    /// Takes the requests that `matches` says out of the queues and off the connections (their streams
    /// reset), and fails each with `code` and its message.
    private func fail(
        where matches: (LaneJob) -> Bool, _ code: HTTPError.Code, _ message: (LaneJob) -> String
    ) {
        waiting.removeAll { entry in
            guard matches(entry.job) else { return false }
            entry.job.fail(code, message(entry.job))
            return true
        }
        for origin in Array(held.keys) {
            held[origin]!.removeAll { job in
                guard matches(job) else { return false }
                job.fail(code, message(job))
                return true
            }
            if held[origin]!.isEmpty { held[origin] = nil }
        }
        for connection in connections {
            for job in connection.jobs(where: matches) where connection.abandon(job) { job.fail(code, message(job)) }
        }
    }

    private func shutDown() {
        for (_, job) in waiting { job.fail(.shutdown, "the HTTP/2 lane was shut down") }
        waiting.removeAll()
        for job in held.values.joined() { job.fail(.shutdown, "the HTTP/2 lane was shut down") }
        held.removeAll()
        lock.lock()
        let late = inbox
        inbox.removeAll()
        let made = opened
        opened.removeAll()
        lock.unlock()
        for job in late { job.fail(.shutdown, "the HTTP/2 lane was shut down") }
        for case .success(let connection) in made.map(\.result) { connection.close() }
        for connection in connections {
            for job in connection.takeStreams() { job.fail(.shutdown, "the HTTP/2 lane was shut down") }
            connection.close()
        }
        active.removeAll()
        draining.removeAll()
        lock.lock()
        openCounts.removeAll()
        lock.unlock()
    }
}
