import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Testing
import Throttling
import Worker
import WorkerTesting

/// What the worker does when a channel cannot be had or is lost: it says so and goes on by tokens; and the
/// collector finds the channels a crash left behind.
@Suite("Broadcast channels when things go wrong")
struct APNsChannelFailureTests {
    typealias Setup = MatchReplay
    typealias Replay = APNsChannelReplayTests

    /// The match with `fake` prepared by `prepare`, in `mode`, logs captured.
    static func replay(
        mode: String, logs: CapturingLogHandler.Store, fake: FakeAPNs, setup: MatchReplay,
        registering: @escaping (SQLiteStore) async throws -> Void = Setup.registerDevice,
        started: @escaping @Sendable (SQLiteStore) async throws -> Void = Setup.registerActivityToken,
        finished: (LiveRelayWorker) async throws -> Void = { _ in }
    ) async throws -> SQLiteStore {
        try await setup.replay(
            logger: CapturingLogHandler.logger(logs), registering: registering, started: started, finished: finished)
    }

    @Test func atTheChannelLimitTheMatchGoesByTokensAndSaysSo() async throws {
        try await Setup.withFakeAPNs(channels: ["storage-policy": 0], extra: Replay.modes("channel")) { setup, fake in
            fake.setChannelLimit(0)
            let logs = CapturingLogHandler.Store()
            let store = try await Self.replay(mode: "channel", logs: logs, fake: fake, setup: setup)
            #expect(fake.rejections.map(\.reason) == ["CannotCreateChannelConfig"])
            #expect(logs.all.contains { $0.hasPrefix("warning channel limit reached: the activity goes by tokens") })
            // Exactly the token mode's pushes: the start without a channel, the updates to the activity's token.
            let (actual, expected) = try Setup.golden("expected-apns.json", try FakeAPNsPush.goldenJSON(fake.accepted))
            #expect(actual == expected)
            #expect(try await store.channels().isEmpty)
        }
    }

    @Test func broadcastNotEnabledIsALoudConfigurationErrorAndTokensStillWork() async throws {
        try await Setup.withFakeAPNs(channels: ["storage-policy": 0], extra: Replay.modes("both")) { setup, fake in
            fake.setBroadcastEnabled(false)
            let logs = CapturingLogHandler.Store()
            _ = try await Self.replay(mode: "both", logs: logs, fake: fake, setup: setup)
            let line = try #require(logs.all.first { $0.contains("cannot create a channel (configuration)") })
            #expect(line.hasPrefix("error "))
            #expect(line.contains("FeatureNotEnabled") && line.contains("developer portal"))
            #expect(fake.accepted.count == 7, "the start and six updates by token")
            #expect(fake.broadcasts.isEmpty)
        }
    }

    @Test func aChannelDeletedUnderUsIsReportedAndTheRestGoByTokens() async throws {
        try await Setup.withFakeAPNs(channels: ["storage-policy": 0], extra: Replay.modes("both")) { setup, fake in
            let logs = CapturingLogHandler.Store()
            let store = try await Self.replay(
                mode: "both", logs: logs, fake: fake, setup: setup,
                registering: Replay.registerTwoDevices,
                started: { store in
                    try await Replay.registerSecondActivityToken(store)
                    // Someone deletes the match's channel (another tool, the operator) once it has started.
                    for id in fake.channels.keys { fake.removeChannel(id) }
                })
            #expect(fake.rejections.map(\.reason) == ["ChannelNotRegistered"])
            let gone = try #require(logs.all.first { $0.contains("broadcast channel gone") })
            #expect(gone.hasPrefix("error ") && gone.contains("activity.key=match-760499"))
            #expect(fake.broadcasts.isEmpty)
            // The device that goes by tokens gets every update; nothing stops.
            let toB = fake.accepted.filter { $0.token == Replay.secondActivityToken }
            #expect(toB.count == 6)
            #expect(try await store.channels().isEmpty)
        }
    }

    @Test func theCollectorFindsTheChannelACrashLeftAndSparesTheLiveOne() async throws {
        try await Setup.withFakeAPNs(channels: ["storage-policy": 0], extra: Replay.modes("channel")) { setup, fake in
            let logs = CapturingLogHandler.Store()
            _ = try await Self.replay(
                mode: "channel", logs: logs, fake: fake, setup: setup, started: { _ in },
                finished: { worker in
                    let live = try #require(fake.createdChannels.first)
                    // A run that created a channel and died before saving it.
                    let channels = try #require(worker.sender(for: "apns")?.provider.channels)
                    let orphan = try await channels.create()
                    let now = Replay.dismissal - 60
                    let preview = try await worker.pipeline.collectChannels(dryRun: true, now: now)
                    #expect(preview.map(\.listed) == [2])
                    #expect(preview.first?.stale.map(\.id) == [orphan])
                    #expect(preview.first?.stale.map(\.reason) == [.unknown])
                    #expect(fake.deletedChannels.isEmpty, "a dry run deletes nothing")
                    let swept = try await worker.pipeline.collectChannels(dryRun: false, now: now)
                    #expect(swept.first?.failures.isEmpty == true)
                    #expect(fake.deletedChannels == [orphan])
                    #expect(fake.channels.keys.sorted() == [live], "the match's channel waits for its dismissal")
                })
        }
    }

    @Test func theCollectorSparesTheChannelOfAnEndTheThrottleStillHolds() async throws {
        try await Setup.withFakeAPNs(channels: ["storage-policy": 0], extra: Replay.modes("channel")) { setup, fake in
            let loaded = try ConfigLoader.load(path: setup.configPath)
            let store = try SQLiteStore(path: setup.directory.appendingPathComponent("collector.sqlite").path)
            let worker = try await LiveRelayWorker.build(
                loaded, rules: loaded.loadRules(), store: store,
                environment: .test(now: { Int(Date().timeIntervalSince1970) }))
            defer { worker.shutdown() }
            let channels = try #require(worker.sender(for: "apns")?.provider.channels)
            let id = try await channels.create()
            try await store.saveChannel(
                ActivityChannel(activity: "match-9", provider: "apns", id: id, storagePolicy: 0, createdAt: 0))
            // The match has ended (its end decided), but the end waits in the throttle for its budget.
            try await store.save([
                ActivityRecord(
                    key: "match-9", attributesType: "MatchAttributes", phase: .ended, state: [:], lastTimestamp: 10)
            ])
            var state = ActivityThrottleState(attributesType: "MatchAttributes")
            state.pending = PendingPush(
                push: LiveActivityPush(
                    activity: "match-9", attributesType: "MatchAttributes", event: .end, timestamp: 10,
                    contentState: [:], priority: .high),
                policy: .high, whenBudgetSpent: .hold, enqueuedAt: 10)
            try await store.saveThrottleStates([("match-9", try state.canonicalJSON(), true)])
            let held = try await worker.pipeline.collectChannels(dryRun: true, now: 20)
            #expect(held.first?.stale.isEmpty == true, "the end still has to go to the channel")
            // Once nothing waits, the channel of the ended activity is stale.
            state.pending = nil
            try await store.saveThrottleStates([("match-9", try state.canonicalJSON(), false)])
            let after = try await LiveRelayWorker.build(
                loaded, rules: loaded.loadRules(), store: store,
                environment: .test(now: { Int(Date().timeIntervalSince1970) }))
            defer { after.shutdown() }
            let swept = try await after.pipeline.collectChannels(dryRun: false, now: 20)
            #expect(swept.first?.stale.map(\.reason) == [.ended])
            #expect(fake.deletedChannels == [id])
        }
    }

    @Test func aChannelModeWithoutChannelsIsAConfigError() async throws {
        try await Setup.withFakeAPNs(extra: Replay.modes("channel")) { setup, _ in
            let loaded = try ConfigLoader.load(path: setup.configPath)
            #expect(throws: Diagnostics.self) { _ = try loaded.routes(for: loaded.loadRules()) }
            do {
                _ = try loaded.routes(for: loaded.loadRules())
            } catch {
                #expect("\(error)".contains("activity-modes[0]: mode channel needs an apns provider with channels"))
            }
        }
    }
}
