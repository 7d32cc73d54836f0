import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import PostgresStore
import Store
import Testing
import Worker

/// Three `liverelay run` processes on one PostgreSQL and the fake APNs (HTTP/2 + TLS): one polls the match,
/// all three share its fan-outs through the outbox claims; the poller is killed with SIGKILL mid-fan-out.
@Suite(
    "several workers on PostgreSQL", .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"] != nil,
        "PostgreSQL is not configured: eval \"$(scripts/postgres-cluster.sh start)\" and export LIVERELAY_TEST_POSTGRES_URL and LIVERELAY_TEST_POSTGRES_PASSWORD (CI does)"
    ))
struct MultiWorkerTests {
    static let devices = 10_000
    static let claimBatch = 500

    static func token(_ prefix: String, _ i: Int) -> String {
        prefix + String(format: "%08x", i) + String(repeating: "0", count: 54)
    }

    /// 10,000 devices follow the match: kick-off (10,000 starts), the goal at 44' (10,000 updates to the
    /// tokens the apps then report), full time (10,000 ends). The worker that polls is killed with SIGKILL
    /// while full time fans out. Every device gets every push, in order; the survivors finish the dead
    /// worker's rows once its claims expire and take the feed over; nothing is sent twice except what the
    /// dead worker had in flight (at most one claim batch, each first sent before the kill).
    @Test func threeWorkersShareTheFanOutAndSurviveASigkill() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"])
        let password = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_PASSWORD"]
        let schema = "mw_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let postgres: JSONValue = [
            "url": .string(url), "password": ["env": "LIVERELAY_TEST_POSTGRES_PASSWORD"],
            "schema": .string(String(schema)),
            "claim-seconds": 20, "claim-batch": .int(Self.claimBatch), "lease-seconds": 3,
        ]
        try await MatchReplay.withFakeAPNs(extra: ["postgres": postgres]) { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            let store = try PostgresStore(
                .init(url: url, password: password.map(Secret.init), schema: String(schema), worker: "test"))
            let pool = Task { await store.run() }
            defer {
                pool.cancel()
            }
            try await store.open()
            let entity = EntityKey(feed: "espn-worldcup", id: "760499")
            for i in 0..<Self.devices {
                try await store.subscribe(device: "d\(i)", to: entity)
                try await store.registerPushToStartToken(
                    device: "d\(i)", attributesType: "MatchAttributes", token: Self.token("aa", i),
                    environment: .sandbox, now: 0)
            }
            // Each worker its own name (and config), the rest shared.
            var workers: [(name: String, run: RunWithAPNs)] = []
            for name in ["w1", "w2", "w3"] {
                let path = setup.configPath.replacingOccurrences(of: ".json", with: "-\(name).json")
                var config = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: setup.configPath)))
                if case .object(var members) = config, case .object(var pg)? = members["postgres"] {
                    pg["worker"] = .string(name)
                    members["postgres"] = .object(pg)
                    config = .object(members)
                }
                try config.jsonData().write(to: URL(fileURLWithPath: path))
                let replay = MatchReplay(directory: setup.directory, configPath: path)
                workers.append((name, try await RunWithAPNs.start(replay, fake: fake, feed: feed)))
            }
            defer { for w in workers { w.run.transport.shutdown() } }
            let first = workers[0].run
            fake.setResponseDelay(.milliseconds(2))

            feed.advance(to: 1)
            #expect(await first.waitForAccepted(Self.devices, timeout: .seconds(300)), "kick-off: every start")
            try await store.importActivityTokens(
                (0..<Self.devices).map { i in
                    (activity: "match-760499", device: "d\(i)", token: Self.token("bb", i), environment: .sandbox)
                }, now: 0)
            feed.advance(to: 3)
            #expect(await first.waitForAccepted(2 * Self.devices, timeout: .seconds(300)), "the goal: every update")

            let poller = try #require(try await store.leaseHolder(PollerLease.name)?.worker)
            let victim = try #require(workers.first { $0.name == poller })
            feed.advance(to: 7)
            #expect(await first.waitForAccepted(2 * Self.devices + 1_500, timeout: .seconds(300)))
            victim.run.process.signal(SIGKILL)
            _ = await victim.run.process.waitForExit()
            // What the dead worker's connections delivered is recorded by now; its claimed rows cannot go again
            // before the claims expire (20 s; a busy machine must not let a live round's claims lapse).
            try await Task.sleep(for: .milliseconds(500))
            let atKill = fake.accepted.count
            #expect(atKill < 3 * Self.devices, "the kill landed mid-fan-out")

            // The survivors finish the fan-out once the dead worker's claims expire.
            #expect(await first.waitForAccepted(3 * Self.devices, timeout: .seconds(300)), "full time: every end")
            // And one of them polls the feed now (within two poll intervals of the lease's end).
            var holder: String?
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                holder = try await store.leaseHolder(PollerLease.name)?.worker
                if let holder, holder != poller { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(holder != nil && holder != poller, "a surviving worker took the feed over")
            try await Task.sleep(for: .seconds(1))
            for w in workers where w.name != poller {
                w.run.process.signal(SIGTERM)
                #expect(await w.run.process.waitForExit() == 0)
            }

            #expect(fake.rejections.isEmpty)
            let accepted = fake.accepted
            var byToken: [String: [(timestamp: Int, event: String, index: Int)]] = [:]
            for (index, push) in accepted.enumerated() {
                let aps = try JSONParser.parse(push.body)["aps"]
                guard case .int(let t)? = aps?["timestamp"], case .string(let e)? = aps?["event"] else { continue }
                byToken[push.token, default: []].append((t, e, index))
            }
            var duplicates = 0
            for i in 0..<Self.devices {
                let starts = byToken[Self.token("aa", i)] ?? []
                let updates = byToken[Self.token("bb", i)] ?? []
                #expect(starts.first?.event == "start", "device \(i) got its start")
                #expect(updates.map(\.event).filter { $0 != "update" }.allSatisfy { $0 == "end" })
                #expect(updates.last?.event == "end", "device \(i) got the end")
                #expect(Set(updates.map(\.event)) == ["update", "end"], "device \(i) got every push")
                for seen in [starts, updates] {
                    #expect(
                        zip(seen, seen.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp },
                        "device \(i): never older after newer")
                    // The same push twice: only one the dead worker had in flight (sent before the kill).
                    for (a, b) in zip(seen, seen.dropFirst()) where a.timestamp == b.timestamp {
                        duplicates += 1
                        #expect(a.index < atKill, "device \(i): a push sent twice was first sent before the kill")
                    }
                }
            }
            #expect(duplicates <= Self.claimBatch, "at most the dead worker's claims went twice: \(duplicates)")
            #expect(try await store.outboxStatus().depth == 0, "nothing left behind")
        }
    }
}
