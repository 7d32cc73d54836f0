import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// `liverelay channels` as an operator runs it, against the fake APNs.
@Suite("liverelay channels")
struct ChannelsCommandTests {
    typealias Setup = MatchReplay

    @Test func listsThenDryRunsThenCollectsTheStaleChannels() async throws {
        try await Setup.withFakeAPNs(
            channels: ["storage-policy": 0], extra: APNsChannelReplayTests.modes("channel")
        ) { setup, fake in
            // One channel a live activity uses, one a crashed run left behind.
            let loaded = try ConfigLoader.load(path: setup.configPath)
            // The state file the command reads.
            let store = try SQLiteStore(path: loaded.resolve(loaded.config.state))
            let liverelay = Repository.executable("liverelay")
            func channels(_ extra: [String] = []) async throws -> CommandRun {
                try await CommandRun.run(liverelay, ["channels", "--config", setup.configPath] + extra)
            }
            // Nothing yet: APNs has none.
            let empty = try await channels()
            #expect(empty.status == 0, "\(empty.standardError)")
            #expect(empty.standardOutput.contains("apns: 0 channels at APNs, 0 known, 0 stale"))
            let worker = try await LiveRelayWorker.build(
                loaded, rules: loaded.loadRules(), store: store,
                environment: .test(now: { Int(Date().timeIntervalSince1970) }))
            defer { worker.shutdown() }
            let client = try #require(worker.sender(for: "apns")?.provider.channels)
            let live = try await client.create()
            let orphan = try await client.create()
            try await store.saveChannel(
                ActivityChannel(activity: "match-1", provider: "apns", id: live, storagePolicy: 0, createdAt: 0))
            try await store.commit(
                FeedCommit(
                    feed: "espn-worldcup", now: 0, facts: nil,
                    activities: [
                        ActivityRecord(
                            key: "match-1", attributesType: "MatchAttributes", phase: .active, state: [:],
                            lastTimestamp: 1)
                    ]))
            let listed = try await channels()
            #expect(listed.status == 0, "\(listed.standardError)")
            #expect(listed.standardOutput.contains("apns: 2 channels at APNs, 1 known, 1 stale"))
            #expect(listed.standardOutput.contains("open    \(live)  match-1"))
            #expect(listed.standardOutput.contains("stale   \(orphan)  -  unknown to this state file"))
            let dry = try await channels(["--gc", "--dry-run"])
            #expect(dry.standardOutput.contains("dry run: nothing deleted"))
            #expect(fake.deletedChannels.isEmpty)
            let gc = try await channels(["--gc"])
            #expect(gc.status == 0, "\(gc.standardError)")
            #expect(gc.standardOutput.contains("deleted \(orphan)"))
            #expect(fake.deletedChannels == [orphan])
            #expect(fake.channels.keys.sorted() == [live])
        }
    }
}
