import Foundation
import LiveRelayCore
import PostgresStore
import Store
import Testing

/// The PostgreSQL store against a real server: migrations run once however many workers start together,
/// one worker holds a feed until its lease expires, and workers share the outbox without sending a row twice
/// or an older state after a newer one.
@Suite("PostgreSQL store", .enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct PostgresStoreTests {
    static func row(_ activity: String, _ target: String, timestamp: Int, due: Int = 0) -> OutboxEntry {
        OutboxEntry(
            key: OutboxKey(activity: ActivityKey(activity), target: target), kind: "activity", device: "d-\(target)",
            environment: "production", push: Data(#"{"timestamp":\#(timestamp)}"#.utf8), timestamp: timestamp,
            nextAttempt: due, provider: "apns")
    }

    @Test func migrationsRunOnceWhenWorkersStartTogether() async throws {
        try await TestDatabase.with(workers: 3, migrate: false) { stores in
            let applied = try await withThrowingTaskGroup(of: [String].self) { group in
                for store in stores { group.addTask { try await store.migrate() } }
                var all: [String] = []
                for try await ids in group { all += ids }
                return all
            }
            #expect(
                applied.sorted() == [
                    "v1-feed-leases", "v1-outbox", "v10-activity-entity-running", "v11-outbox-fan-out",
                    "v12-binary-collation", "v2-outbox-channel-policy",
                    "v3-state",
                    "v4-start-pace", "v5-worker-heartbeat", "v6-activity-changes", "v7-late-join", "v8-subscriptions",
                    "v9-subscription-device",
                ])
            #expect(try await stores[1].migrate().isEmpty)
            #expect(
                try await stores[2].appliedMigrations() == [
                    "v1-feed-leases", "v1-outbox", "v10-activity-entity-running", "v11-outbox-fan-out",
                    "v12-binary-collation", "v2-outbox-channel-policy",
                    "v3-state",
                    "v4-start-pace", "v5-worker-heartbeat", "v6-activity-changes", "v7-late-join", "v8-subscriptions",
                    "v9-subscription-device",
                ])
        }
    }

    @Test func oneWorkerHoldsAFeedUntilItsLeaseExpires() async throws {
        try await TestDatabase.with(workers: 2) { stores in
            let (a, b) = (stores[0], stores[1])
            #expect(try await a.acquireLease(feed: "espn", worker: "a", now: 100, seconds: 30))
            #expect(try await !b.acquireLease(feed: "espn", worker: "b", now: 110, seconds: 30))
            #expect(try await a.acquireLease(feed: "espn", worker: "a", now: 120, seconds: 30), "a renews")
            #expect(try await !b.acquireLease(feed: "espn", worker: "b", now: 149, seconds: 30))
            // a stopped renewing (it died): at its expiry b takes the feed over.
            #expect(try await b.acquireLease(feed: "espn", worker: "b", now: 150, seconds: 30))
            #expect(try await a.leaseHolder(feed: "espn")?.worker == "b")
            #expect(try await !a.acquireLease(feed: "espn", worker: "a", now: 151, seconds: 30))
            // A graceful stop gives it up at once.
            try await b.releaseLease(feed: "espn", worker: "b")
            #expect(try await a.acquireLease(feed: "espn", worker: "a", now: 152, seconds: 30))
        }
    }

    @Test func workersClaimingAtOnceGetDisjointRowsAndFinishEachOnce() async throws {
        try await TestDatabase.with(workers: 3) { stores in
            let rows = (0..<600).map { Self.row("match-\($0 % 7)", String(format: "%04x", $0), timestamp: 10) }
            try await stores[0].enqueue(rows)
            let claimed = try await withThrowingTaskGroup(of: [OutboxKey].self) { group in
                for (i, store) in stores.enumerated() {
                    group.addTask {
                        var mine: [OutboxKey] = []
                        while true {
                            let batch = try await store.claimDue(worker: "w\(i)", now: 20, leaseSeconds: 60, limit: 50)
                            if batch.isEmpty { break }
                            mine += batch.map(\.key)
                            try await store.settle(done: batch, later: [], worker: "w\(i)")
                        }
                        return mine
                    }
                }
                var all: [[OutboxKey]] = []
                for try await keys in group { all.append(keys) }
                return all
            }
            let every = claimed.flatMap { $0 }
            #expect(every.count == 600, "each row claimed once")
            #expect(Set(every) == Set(rows.map(\.key)))
            #expect(claimed.filter { !$0.isEmpty }.count >= 2, "the work was shared")
            #expect(try await stores[0].outboxDepth() == 0)
        }
    }

    @Test func aDeadWorkersClaimsExpireAndItsLateSettlementFinishesNothing() async throws {
        try await TestDatabase.with(workers: 2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await a.enqueue([Self.row("match-1", "aa", timestamp: 10), Self.row("match-1", "bb", timestamp: 10)])
            let taken = try await a.claimDue(worker: "a", now: 20, leaseSeconds: 30, limit: 10)
            #expect(taken.count == 2)
            // a dies mid-batch: its rows are not claimable until its lease ends, then b takes them.
            #expect(try await b.claimDue(worker: "b", now: 49, leaseSeconds: 30, limit: 10).isEmpty)
            let retaken = try await b.claimDue(worker: "b", now: 50, leaseSeconds: 30, limit: 10)
            #expect(Set(retaken.map(\.key)) == Set(taken.map(\.key)))
            // a comes back and settles what it had: the rows are b's now, nothing is finished twice.
            try await a.settle(done: taken, later: [], worker: "a")
            #expect(try await a.outboxDepth() == 2)
            try await b.settle(done: retaken, later: [], worker: "b")
            #expect(try await a.outboxDepth() == 0)
        }
    }

    /// A waiting start that a newer state would rewrite is left alone while a worker sends it: it counts as
    /// sent (its receipt marks the start), as a start already delivered would.
    @Test func aStartInFlightOnAnotherWorkerIsNotRewritten() async throws {
        try await TestDatabase.with(workers: 2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await a.enqueue([Self.row("match-1", "aa", timestamp: 10)])
            let inFlight = try await b.dueOutbox(now: 20, limit: 10)
            #expect(inFlight.count == 1)
            try await a.commitRelease(
                throttleStates: [], outbox: [],
                rewrites: [OutboxRewrite(row: Self.row("match-1", "aa", timestamp: 12), previousTimestamp: 10)],
                drops: [], history: nil)
            try await b.settleOutbox(done: inFlight, later: [], started: [], sent: [], now: 21)
            #expect(try await a.outboxDepth() == 0, "the start went; nothing older or newer is left on its target")
        }
    }

    @Test func aNewerStateWaitsForTheOlderInFlightOnAnotherWorker() async throws {
        try await TestDatabase.with(workers: 2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await a.enqueue([Self.row("match-1", "aa", timestamp: 10)])
            let older = try await a.claimDue(worker: "a", now: 20, leaseSeconds: 30, limit: 10)
            // While a sends the older state, a newer one is released for the same target.
            try await b.enqueue([Self.row("match-1", "aa", timestamp: 11)])
            #expect(try await b.claimDue(worker: "b", now: 21, leaseSeconds: 30, limit: 10).isEmpty)
            // An older push never replaces a newer one.
            try await b.enqueue([Self.row("match-1", "aa", timestamp: 9)])
            try await a.settle(done: older, later: [], worker: "a")
            let newer = try await b.claimDue(worker: "b", now: 22, leaseSeconds: 30, limit: 10)
            #expect(newer.map(\.timestamp) == [11])
            #expect(newer.first?.device == "d-aa" && newer.first?.provider == "apns")
        }
    }

    @Test func theNewestOfABatchWinsAndNullsStayNull() async throws {
        try await TestDatabase.with { stores in
            var bare = Self.row("match-2", "cc", timestamp: 5)
            bare.device = nil
            bare.provider = nil
            var broadcast = Self.row("match-3", "@channel:Y2g=", timestamp: 7)
            broadcast.channel = "Y2g="
            broadcast.channelPolicy = 0
            // The same row twice in one batch (one device's token registered twice) is written once.
            try await stores[0].enqueue([
                Self.row("match-1", "aa", timestamp: 10), Self.row("match-1", "aa", timestamp: 12),
                Self.row("match-1", "aa", timestamp: 11), bare, broadcast, broadcast,
            ])
            let rows = try await stores[0].claimDue(worker: "a", now: 20, leaseSeconds: 30, limit: 10)
            #expect(rows.map(\.timestamp).sorted() == [5, 7, 12])
            let cc = try #require(rows.first { $0.key.target == "cc" })
            #expect(cc.device == nil && cc.provider == nil && cc.environment == "production")
            #expect(cc.channelPolicy == nil)
            let channel = try #require(rows.first { $0.channel != nil })
            #expect(channel.channel == "Y2g=" && channel.channelPolicy == 0)
        }
    }

    @Test func aRetryWaitsForItsNextAttempt() async throws {
        try await TestDatabase.with { stores in
            let store = stores[0]
            try await store.enqueue([Self.row("match-1", "aa", timestamp: 10)])
            var row = try #require(try await store.claimDue(worker: "a", now: 20, leaseSeconds: 30, limit: 1).first)
            row.attempts = 1
            row.nextAttempt = 40
            try await store.settle(done: [], later: [row], worker: "a")
            #expect(try await store.claimDue(worker: "a", now: 39, leaseSeconds: 30, limit: 1).isEmpty)
            #expect(try await store.claimDue(worker: "a", now: 40, leaseSeconds: 30, limit: 1).map(\.attempts) == [1])
        }
    }
}

/// What needs no server: the configuration is checked before anything connects.
@Suite("PostgreSQL store configuration")
struct PostgresConfigurationTests {
    /// The pool lives as long as the work that uses it: `whileRunning` returns the body's value or throws its
    /// error, and returns at all only once the pool it ran has stopped (a pool left running would hold it).
    /// The one test of this suite that needs a server: skipped, saying why, without one.
    @Test(.enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
    func thePoolRunsWhileItsWorkDoesAndStopsWithIt() async throws {
        let url = try #require(TestDatabase.url)
        let schema = "w_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        func store() throws -> PostgresStore {
            try PostgresStore(.init(url: url, password: TestDatabase.password.map(Secret.init), schema: String(schema)))
        }
        let first = try store()
        let applied = try await first.whileRunning { () async throws -> [String] in
            try await first.migrate()
            return try await first.appliedMigrations()
        }
        #expect(applied.contains("v3-state"), "the body's value comes out")
        struct Stop: Error {}
        // A pool runs once: the second run is another store's.
        let second = try store()
        await #expect(throws: Stop.self, "the body's error comes out") {
            try await second.whileRunning { () async throws -> Void in
                try await second.dropSchema()
                throw Stop()
            }
        }
    }

    @Test func aBadURLOrAPasswordInItIsRefusedWithoutEchoingIt() {
        #expect(throws: PostgresStore.Failure.self) { try PostgresStore(.init(url: "mysql://x@h/db")) }
        do {
            _ = try PostgresStore(.init(url: "postgres://user:hunter2@localhost/db"))
            Issue.record("a password in the URL was taken")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("secret reference"))
        }
    }

    @Test func aSchemaNameIsAnIdentifierOnly() {
        #expect(throws: PostgresStore.Failure.self) {
            try PostgresStore(.init(url: "postgres://u@localhost/db", schema: "x; DROP TABLE outbox"))
        }
    }
}

/// TLS to the database, against the test cluster's certificate for 127.0.0.1 (made by its own CA, which
/// `scripts/postgres-cluster.sh` prints): verified with that CA, refused with the system's roots.
@Suite(
    "PostgreSQL over TLS",
    .enabled(
        if: TestDatabase.available && ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_CA"] != nil,
        Comment(rawValue: TestDatabase.absent + " (and LIVERELAY_TEST_POSTGRES_CA)")))
struct PostgresTLSTests {
    static let ca = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_CA"] ?? ""

    @Test func theServersCertificateIsVerifiedAgainstTheGivenCA() async throws {
        let url = try #require(TestDatabase.url)
        let schema = "tls_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let store = try PostgresStore(
            .init(
                url: url, password: TestDatabase.password.map(Secret.init), tls: true, caFile: Self.ca,
                schema: String(schema)))
        try await store.whileRunning {
            try await store.open()
            #expect(try await store.appliedMigrations().contains("v3-state"), "the pool's connections use TLS too")
            try await store.dropSchema()
        }
    }

    @Test func aCertificateNoTrustedCASignedIsRefused() async throws {
        let url = try #require(TestDatabase.url)
        let store = try PostgresStore(
            .init(url: url + "?sslmode=require", password: TestDatabase.password.map(Secret.init)))
        do {
            try await store.check()
            Issue.record("a certificate from an unknown CA was accepted")
        } catch {
            #expect(error.description.contains("CERTIFICATE_VERIFY_FAILED"), "\(error)")
            #expect(!error.description.contains(TestDatabase.password ?? "never"))
        }
    }
}
