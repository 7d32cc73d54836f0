import ArgumentParser
import Delivery
import Foundation
import HTTP
import LiveRelayCore
import Logging
import Synchronization

/// LiveRelay's APNs sender (the real `Sender` and `APNsProvider` over the push lane, or `CurlTransport`)
/// pushing to a loopback HTTP/2 + TLS server. Prints one JSON line, like the other clients of
/// `scripts/bench/fanout.sh`.
struct FanoutBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Pushes/s of the APNs sender to a loopback HTTP/2 + TLS server (see scripts/bench/fanout.sh).")

    @Option(help: "The server's base URL.") var url: String
    @Option(help: "The CA that signed the server's certificate.") var ca: String
    @Option(help: "A .p8 key for the provider token.") var key: String
    @Option(help: "JSON lines {token, payload, priority} (scripts/bench/make_payloads.py).") var payloads: String
    @Option(help: "Pushes to send.") var count = 100_000
    @Option(help: "HTTP/2 connections (one libcurl thread each).") var connections = 1
    @Option(help: "Concurrent streams per connection.") var streams = 100
    @Option(help: "Let the kernel merge small writes, as the push providers' transports do by default.")
    var coalesceWrites = true
    @Option(help: "The HTTP/2 lane: nghttp2 (HTTP2Lane) or curl (CurlTransport).") var lane = "nghttp2"
    @Option(
        help: """
            What hands the provider its pushes: sender (the Sender, as the pipeline sends: its tasks, retries \
            and receipts) or provider (a task per push calling the provider directly).
            """)
    var through = "sender"
    @Option(
        help: """
            What is sent: one (the file's first payload to every token, as h2load and a goal send one state to             many devices) or distinct (the file's payloads in turn, each encoded; one target each).
            """)
    var payload = "one"

    func run() async throws {
        let pushes = try loadPushes()
        var http = CurlTransport.Configuration()
        http.caFile = ca
        http.threads = connections
        http.maxConnectionsPerHost = 1
        http.maxConcurrentStreams = streams
        http.coalesceWrites = coalesceWrites
        let transport: any HTTPTransport
        if lane == "curl" {
            let curl = try CurlTransport(configuration: http)
            transport = curl
        } else {
            transport = try HTTP2Lane(configuration: HTTP2Lane.Configuration(caFile: ca, connections: connections))
        }
        let signing = try APNsSigningKey(
            pem: Secret(String(contentsOfFile: key, encoding: .utf8)), keyID: "BENCHKEY01", teamID: "BENCHTEAM1")
        let provider = APNsProvider(
            configuration: APNsProvider.Configuration(
                endpoint: APNsEndpoint(url: url, environment: .production), bundleID: "com.example.scores",
                requestTimeout: .seconds(60), maxInFlight: connections * streams),
            key: signing, transport: transport)
        let inFlight = connections * streams
        let timed = TimedProvider(provider)
        let sender = Sender(
            provider: timed, logger: Logger(label: "liverelay-bench"),
            retry: RetryPolicy(maxAttempts: 1))
        func send(_ range: Range<Int>) async -> (latencies: [Double], failures: Int) {
            if through == "sender", payload == "one" {
                let receipts = await sender.send(pushes[0].0, to: range.map { pushes[$0 % pushes.count].1 })
                return (timed.take(), receipts.filter { $0.outcome != .delivered }.count)
            }
            guard through == "provider" else {
                let receipts = await sender.send(
                    range.map { (pushes[$0 % pushes.count].0, [pushes[$0 % pushes.count].1]) })
                return (timed.take(), receipts.filter { $0[0].outcome != .delivered }.count)
            }
            return await withTaskGroup(of: (Double, Bool).self) { group in
                var latencies: [Double] = []
                latencies.reserveCapacity(range.count)
                var failures = 0
                var next = range.lowerBound
                func add(_ i: Int) {
                    let (push, target) = pushes[i % pushes.count]
                    group.addTask {
                        let start = ContinuousClock.now
                        let outcome = await provider.deliver(push, to: target)
                        if outcome != .delivered, ProcessInfo.processInfo.environment["FANOUT_DEBUG"] != nil {
                            FileHandle.standardError.write(Data("\(outcome)\n".utf8))
                        }
                        return ((ContinuousClock.now - start).seconds, outcome == .delivered)
                    }
                }
                while next < min(range.upperBound, range.lowerBound + inFlight) {
                    add(next)
                    next += 1
                }
                for await (latency, ok) in group {
                    latencies.append(latency)
                    if !ok { failures += 1 }
                    if next < range.upperBound {
                        add(next)
                        next += 1
                    }
                }
                return (latencies, failures)
            }
        }
        _ = await send(0..<min(2000, count))  // warm up: connections, TLS, the provider token
        let cpu0 = cpuSeconds()
        let start = ContinuousClock.now
        let (latencies, failures) = await send(0..<count)
        let wall = (ContinuousClock.now - start).seconds
        let cpu = cpuSeconds() - cpu0
        let result: JSONValue = [
            "client": "liverelay", "pushes": .int(count), "failures": .int(failures), "seconds": .double(wall),
            "pushes_per_second": .double(Double(count) / wall), "p50_ms": .double(percentile(latencies, 0.5) * 1000),
            "p99_ms": .double(percentile(latencies, 0.99) * 1000), "cpu_seconds": .double(cpu),
            "peak_rss_mb": .double(peakRSSMegabytes()), "connections": .int(connections), "in_flight": .int(inFlight),
            "through": .string(through), "payload": .string(payload),
        ]
        print(result.jsonString())
    }

    /// The payload file's pushes as LiveRelay pushes (update events, the same content-states and alerts).
    private func loadPushes() throws -> [(LiveActivityPush, PushTarget)] {
        let text = try String(contentsOfFile: payloads, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let item = try JSONParser.parse(String(line))
            let aps = item["payload"]!["aps"]!
            var alert: LiveActivityAlert?
            if let a = aps["alert"] {
                alert = LiveActivityAlert(
                    title: a["title"]?.stringValue, body: a["body"]?.stringValue, sound: a["sound"]?.stringValue)
            }
            guard case .int(let timestamp)? = aps["timestamp"], case .int(let priority)? = item["priority"] else {
                throw ValidationError("bad payload line")
            }
            let push = LiveActivityPush(
                activity: ActivityKey("bench"), attributesType: "MatchAttributes", event: .update, timestamp: timestamp,
                contentState: aps["content-state"]!, alert: alert,
                relevanceScore: aps["relevance-score"]?.doubleValue.map(RelevanceScore.init),
                staleDate: aps["stale-date"].flatMap { if case .int(let s) = $0 { s } else { nil } },
                priority: priority == 10 ? .high : .low)
            return (push, PushTarget(kind: .activity, token: item["token"]!.stringValue!))
        }
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// A provider that times each request of the one it wraps (the latencies the `Sender` hides).
private final class TimedProvider: PushProvider {
    let inner: APNsProvider
    private let latencies = Mutex<[Double]>([])

    init(_ inner: APNsProvider) { self.inner = inner }

    var traits: ProviderTraits { inner.traits }

    func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome] {
        let start = ContinuousClock.now
        let outcomes = await inner.deliver(push, to: targets)
        let seconds = (ContinuousClock.now - start).seconds
        latencies.withLock { $0.append(seconds) }
        return outcomes
    }

    /// The latencies so far, forgotten.
    func take() -> [Double] {
        latencies.withLock { taken in
            defer { taken = [] }; return taken
        }
    }
}
