import ArgumentParser
import Foundation
import LiveRelayCore
import PostgresStore
import Store

/// What the durable outbox costs per push: 100,000 rows written as releases write them, then delivered
/// (read or claimed, then finished) by one worker on SQLite, and by one and two workers on PostgreSQL
/// (`FOR UPDATE SKIP LOCKED` claims). No network: the database's share of a fan-out.
struct OutboxBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Outbox write, claim and finish per push: SQLite, and PostgreSQL with 1 and 2 workers.")

    @Option(help: "Rows (one push to one device each).") var rows = 100_000
    @Option(help: "Rows per release write.") var writeBatch = 10_000
    @Option(help: "Rows a worker claims (or reads) at once.") var claimBatch = 1_000
    @Option(help: "PostgreSQL URL (postgres://user@host:port/db); without it only SQLite runs.")
    var postgresURL: String?
    @Option(help: "Environment variable holding the PostgreSQL password.") var passwordEnv =
        "LIVERELAY_TEST_POSTGRES_PASSWORD"

    func entries() -> [OutboxEntry] {
        let push = Data(
            #"{"activity":"match-1","attributesType":"MatchAttributes","contentState":{"awayScore":0,"homeScore":1},"event":"update","priority":10,"ruleIDs":["goal"],"timestamp":1783104060}"#
                .utf8)
        return (0..<rows).map { i in
            OutboxEntry(
                key: OutboxKey(
                    activity: "match-1", target: String(format: "%08x", i) + String(repeating: "ab", count: 76)),
                kind: "activity", device: "d\(i)", environment: "production", push: push, timestamp: 1_783_104_060,
                nextAttempt: 0, provider: "apns")
        }
    }

    func run() async throws {
        let all = entries()
        var table: [[String]] = []
        table.append(try await sqlite(all))
        if let postgresURL {
            let password = ProcessInfo.processInfo.environment[passwordEnv].map(Secret.init)
            for workers in [1, 2] {
                table.append(try await postgres(all, url: postgresURL, password: password, workers: workers))
            }
        }
        print("\(rows) outbox rows: written \(writeBatch) per release, delivered \(claimBatch) per read or claim")
        printTable(["store", "write µs/row", "claim+finish µs/row", "rows/s delivered", "wall s"], table)
    }

    func sqlite(_ all: [OutboxEntry]) async throws -> [String] {
        let dir = try benchDirectory("outbox")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let start = ContinuousClock.now
        for chunk in stride(from: 0, to: all.count, by: writeBatch) {
            try await store.commitRelease(
                throttleStates: [], outbox: Array(all[chunk..<min(chunk + writeBatch, all.count)]))
        }
        let written = ContinuousClock.now
        var delivered = 0
        while true {
            let due = try await store.dueOutbox(now: 1, limit: claimBatch)
            if due.isEmpty { break }
            try await store.settleOutbox(done: due, later: [], started: [], now: 1)
            delivered += due.count
        }
        let end = ContinuousClock.now
        return row("SQLite, 1 worker", start, written, end, delivered)
    }

    func postgres(_ all: [OutboxEntry], url: String, password: Secret?, workers: Int) async throws -> [String] {
        let schema = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let stores = try (0..<workers).map { _ in
            try PostgresStore(.init(url: url, password: password, schema: String(schema)))
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { await store.run() } }
            defer { group.cancelAll() }
            try await stores[0].migrate()
            let start = ContinuousClock.now
            for chunk in stride(from: 0, to: all.count, by: writeBatch) {
                try await stores[0].enqueue(Array(all[chunk..<min(chunk + writeBatch, all.count)]))
            }
            let written = ContinuousClock.now
            let claimBatch = claimBatch
            let delivered = try await withThrowingTaskGroup(of: Int.self) { workersGroup in
                for (i, store) in stores.enumerated() {
                    workersGroup.addTask {
                        var count = 0
                        while true {
                            let claimed = try await store.claimDue(
                                worker: "w\(i)", now: 1, leaseSeconds: 60, limit: claimBatch)
                            if claimed.isEmpty { break }
                            try await store.settle(done: claimed, later: [], worker: "w\(i)")
                            count += claimed.count
                        }
                        return count
                    }
                }
                var total = 0
                for try await count in workersGroup { total += count }
                return total
            }
            let end = ContinuousClock.now
            try await stores[0].dropSchema()
            return row("PostgreSQL, \(workers) worker\(workers == 1 ? "" : "s")", start, written, end, delivered)
        }
    }

    func row(
        _ name: String, _ start: ContinuousClock.Instant, _ written: ContinuousClock.Instant,
        _ end: ContinuousClock.Instant, _ delivered: Int
    ) -> [String] {
        let write = (written - start).seconds
        let deliver = (end - written).seconds
        return [
            name, String(format: "%.1f", write * 1e6 / Double(rows)),
            String(format: "%.1f", deliver * 1e6 / Double(max(delivered, 1))),
            String(format: "%.0f", Double(delivered) / deliver), String(format: "%.2f", (end - start).seconds),
        ]
    }
}
