import LiveRelayCore
import Store
import Testing
import Worker

/// Which channels are stale: pure.
@Suite("Channel collector")
struct ChannelCollectorTests {
    static func channel(_ id: String, _ activity: ActivityKey, deleteAt: Int? = nil) -> ActivityChannel {
        ActivityChannel(
            activity: activity, provider: "apns", id: id, storagePolicy: 0, createdAt: 0, deleteAt: deleteAt)
    }

    @Test func eachReason() {
        let known = [
            Self.channel("live", "a"), Self.channel("waiting", "b"), Self.channel("ended", "c"),
            Self.channel("orphaned", "d"), Self.channel("due", "e", deleteAt: 100),
            Self.channel("scheduled", "f", deleteAt: 500), Self.channel("missing", "g"),
        ]
        let stale = ChannelCollector.stale(
            listed: ["live", "crashed", "waiting", "ended", "orphaned", "due", "scheduled"], known: known,
            phases: ["a": .active, "b": .ended, "c": .ended, "e": .ended, "f": .ended, "g": .active],
            waiting: ["b"], now: 200)
        #expect(stale.map(\.id) == ["crashed", "ended", "orphaned", "due", "missing"])
        #expect(stale.map(\.reason) == [.unknown, .ended, .orphaned, .due, .missing])
        #expect(stale.first?.activity == nil)
    }

    @Test func tenThousandChannelsAreSortedOutAtOnce() {
        let known = (0..<10_000).map { Self.channel("c\($0)", ActivityKey("m\($0)")) }
        var phases: [ActivityKey: ActivityPhase] = [:]
        for i in 0..<10_000 { phases[ActivityKey("m\(i)")] = i % 2 == 0 ? .ended : .active }
        let stale = ChannelCollector.stale(
            listed: known.map(\.id), known: known, phases: phases, waiting: [], now: 0)
        #expect(stale.count == 5_000)
    }
}
