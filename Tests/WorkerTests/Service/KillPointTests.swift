import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import WorkerTesting

/// The real `liverelay tick` killed with SIGKILL at every write boundary of a poll and of a delivery round
/// (`LIVERELAY_KILL_AT`, before and after each write of the process, raised until the tick gets through),
/// then run again: the fake APNs must end up with exactly the pushes of a tick that was never killed (a start
/// included: a start marked as sent before it went out was lost by a kill right after the mark), and no more
/// duplicates than the requests in flight.
@Suite("Kill points", .serialized)
struct KillPointTests {
    /// The simulated times stay within the hour before the real one: the fake APNs checks the provider
    /// token's age on its own clock, and one token (minted by the first tick) serves every tick, so going
    /// back to a saved state file never mints another.
    static let realNow = Int(Date().timeIntervalSince1970)

    /// A state file, the fake APNs and the feed server, with `tick` run against them at a chosen time.
    struct Bed {
        let setup: MatchReplay
        let fake: FakeAPNs
        let feed: FeedServer

        var statePath: String { setup.directory.appendingPathComponent("liverelay.sqlite").path }
        var snapshot: URL { setup.directory.appendingPathComponent("snapshot") }

        /// One `tick` at `now`; killed at `kill` (`before:N`, `after:N`) when given.
        func tick(at now: Int, kill: String? = nil) async throws -> CommandRun {
            try await liverelay(
                [
                    "tick", "--config", setup.configPath, "--now",
                    Date(timeIntervalSince1970: TimeInterval(now)).ISO8601Format(),
                ],
                kill: kill)
        }

        /// The command with `arguments`, with the API's bearer token in its environment.
        func liverelay(_ arguments: [String], kill: String? = nil) async throws -> CommandRun {
            var command = ["LIVERELAY_TEST_BEARER=\(RunWithAPNs.bearer)"]
            if let kill { command.append("LIVERELAY_KILL_AT=\(kill)") }
            command += [Repository.executable("liverelay").path] + arguments
            return try await CommandRun.run(URL(fileURLWithPath: "/usr/bin/env"), command)
        }

        /// Keeps the state file as it is (the file and its `-wal`), to go back to it.
        func save() throws {
            let files = FileManager.default
            try? files.removeItem(at: snapshot)
            try files.createDirectory(at: snapshot, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: statePath + suffix) {
                try files.copyItem(
                    atPath: statePath + suffix, toPath: snapshot.appendingPathComponent("state" + suffix).path)
            }
        }

        /// Puts the saved state file back, with the APNs provider token in use now (a real APNs would not
        /// take a second one minted within 20 minutes: going back in the state file is not going back in time).
        func restore() async throws {
            let key = "apns DEF123GHIJ ABC123DEFG"
            let token = await (try SQLiteStore(path: statePath)).providerToken(key: key)
            let files = FileManager.default
            for suffix in ["", "-wal", "-shm"] {
                try? files.removeItem(atPath: statePath + suffix)
                let saved = snapshot.appendingPathComponent("state" + suffix).path
                if files.fileExists(atPath: saved) { try files.copyItem(atPath: saved, toPath: statePath + suffix) }
            }
            if let token {
                await (try SQLiteStore(path: statePath)).saveProviderToken(
                    key: key, token: token.token, issuedAt: token.issuedAt)
            }
        }

        /// What the fake accepted since `offset`: each push (token and payload) and how many times.
        func pushes(since offset: Int) -> [String: Int] {
            var counts: [String: Int] = [:]
            for push in fake.accepted[offset...] { counts[push.token + " " + push.body, default: 0] += 1 }
            return counts
        }
    }

    static func token(_ prefix: String, _ i: Int) -> String {
        prefix + String(format: "%08x", i) + String(repeating: "0", count: 150)
    }

    static func withBed(
        devices: Int, streams: Int? = nil, channels: JSONValue? = nil, extra: [String: JSONValue] = [:],
        _ body: (Bed) async throws -> Void
    ) async throws {
        try await MatchReplay.withFakeAPNs(channels: channels, extra: extra) { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            if let streams { try Self.limitStreams(setup, to: streams) }
            let bed = Bed(setup: setup, fake: fake, feed: feed)
            do {
                let store = try SQLiteStore(path: bed.statePath)
                for i in 0..<devices {
                    try await store.subscribe(device: "d\(i)", to: MatchReplay.match, now: 0)
                    try await store.registerPushToStartToken(
                        device: "d\(i)", attributesType: "MatchAttributes", token: token("aa", i),
                        environment: .sandbox, now: 0)
                }
            }
            try await body(bed)
            try await feed.stop()
        }
    }

    /// At most `streams` requests in flight to APNs, so a fan-out takes many rounds of requests.
    static func limitStreams(_ setup: MatchReplay, to streams: Int) throws {
        let url = URL(fileURLWithPath: setup.configPath)
        guard case .object(var config) = try JSONParser.parse(Data(contentsOf: url)),
            case .object(var provider) = config["provider"]
        else { throw CancellationError() }
        provider["max-concurrent-streams"] = .int(streams)
        config["provider"] = .object(provider)
        try JSONValue.object(config).jsonData().write(to: url)
    }

    /// The apps report their activities' update tokens once the start reached them.
    static func registerActivityTokens(_ bed: Bed, devices: Int) async throws {
        let store = try SQLiteStore(path: bed.statePath)
        for i in 0..<devices {
            try await store.registerActivityToken(
                activity: "match-760499", device: "d\(i)", token: token("bb", i), environment: .sandbox, now: 0)
        }
    }

    /// Kick-off (a start per device), the goal at 44' (an update per device), full time (an end per device):
    /// for each, every kill point of the tick that handles it.
    @Test func aKillAtAnyWriteLosesNothing() async throws {
        let devices = 6
        try await Self.withBed(devices: devices) { bed in
            bed.feed.advance(to: 0)
            let kickOff = Self.realNow - 47 * 60
            let preMatch = try await bed.tick(at: kickOff - 60)
            #expect(preMatch.status == 0, "\(preMatch.standardError)")
            let steps = [(step: 1, at: kickOff), (3, kickOff + 44 * 60), (7, kickOff + 46 * 60)]
            var boundaries = 0
            for (step, now) in steps {
                bed.feed.advance(to: step)
                try bed.save()
                // The tick as it goes without a kill.
                let offset = bed.fake.accepted.count
                #expect(try await bed.tick(at: now).status == 0)
                let expected = bed.pushes(since: offset)
                #expect(expected.count == devices, "step \(step): one push per device")
                #expect(expected.values.allSatisfy { $0 == 1 })
                for moment in ["before", "after"] {
                    for n in 1... {
                        try await bed.restore()
                        let offset = bed.fake.accepted.count
                        let killed = try await bed.tick(at: now, kill: "\(moment):\(n)")
                        guard killed.status == SIGKILL else {
                            #expect(killed.status == 0, "\(killed.standardError)")
                            #expect(bed.pushes(since: offset) == expected, "no kill: the same pushes")
                            break
                        }
                        boundaries += 1
                        let again = try await bed.tick(at: now)
                        #expect(again.status == 0, "step \(step), killed \(moment):\(n): \(again.standardError)")
                        let got = bed.pushes(since: offset)
                        #expect(Set(got.keys) == Set(expected.keys), "step \(step), killed \(moment):\(n)")
                        // A push in flight at the kill may go again (its receipt was not written), once.
                        #expect(got.values.allSatisfy { $0 <= 2 }, "step \(step), killed \(moment):\(n)")
                        #expect(
                            got.values.reduce(0, +) - got.count <= devices,
                            "killed \(moment):\(n): duplicates within the requests in flight")
                    }
                }
                // On to the next step from the tick that was never killed.
                try await bed.restore()
                #expect(try await bed.tick(at: now).status == 0)
                if step == 1 { try await Self.registerActivityTokens(bed, devices: devices) }
            }
            #expect(boundaries >= 3 * 2 * 3, "every step's tick writes several times")
            #expect(bed.fake.rejections.isEmpty)
        }
    }

    /// A kill during a fan-out to 200 devices, four requests at a time: the pushes whose receipts were
    /// written are not sent again. (Before receipts were written as they came, the whole round's delivered
    /// pushes went again.)
    @Test func aKillMidFanOutResendsOnlyWhatWasInFlight() async throws {
        // The poll's write, the release's, then the receipts' as they come: the 60th is mid-fan-out.
        let (beforeKill, duplicates, maxInFlight) = try await Self.goalKilledMidFanOut(streams: 4, kill: "before:60")
        #expect(duplicates <= 2 * max(maxInFlight, 4), "\(duplicates) sent twice")
        #expect(duplicates < beforeKill / 2)
    }

    /// The same with a window of 40: the fan-out goes to the push lane in batches of 10 tokens, each batch's
    /// receipts handed to the writer when its last answer is in. What goes again after the kill is what was
    /// in flight (the window and one batch more) and what had been answered but not yet written: as for one
    /// request at a time (twice the window, above), within twice the window and a batch.
    @Test func aKillMidFanOutInBatchesResendsWithinTwiceTheWindowAndABatch() async throws {
        // A batch's receipts at a time: the 10th write is mid-fan-out.
        let (beforeKill, duplicates, _) = try await Self.goalKilledMidFanOut(streams: 40, kill: "before:10")
        #expect(duplicates <= 2 * (40 + 10), "\(duplicates) sent twice")
        #expect(duplicates < beforeKill)
    }

    /// A goal to 200 devices, `streams` requests in flight, its tick killed at `kill` and run again: every
    /// device gets it, at most twice. How many went before the kill, how many went twice, and the most the fake
    /// APNs had in flight at once.
    static func goalKilledMidFanOut(streams: Int, kill: String) async throws -> (
        beforeKill: Int, duplicates: Int, maxInFlight: Int
    ) {
        let devices = 200
        var outcome = (beforeKill: 0, duplicates: 0, maxInFlight: 0)
        try await Self.withBed(devices: devices, streams: streams) { bed in
            bed.fake.setResponseDelay(.milliseconds(5))
            let kickOff = Self.realNow - 10 * 60
            bed.feed.advance(to: 1)
            #expect(try await bed.tick(at: kickOff).status == 0)
            try await Self.registerActivityTokens(bed, devices: devices)
            bed.feed.advance(to: 3)
            let offset = bed.fake.accepted.count
            let killed = try await bed.tick(at: kickOff + 5 * 60, kill: kill)
            #expect(killed.status == SIGKILL)
            let beforeKill = bed.fake.accepted.count - offset
            #expect(beforeKill > 30 && beforeKill < devices, "the kill landed mid-fan-out (\(beforeKill) sent)")
            #expect(try await bed.tick(at: kickOff + 5 * 60).status == 0)
            let got = bed.pushes(since: offset)
            #expect(got.count == devices, "every device got the goal")
            #expect(got.values.allSatisfy { $0 <= 2 })
            outcome = (beforeKill, got.values.reduce(0, +) - got.count, bed.fake.maxInFlight)
        }
        return outcome
    }
}
