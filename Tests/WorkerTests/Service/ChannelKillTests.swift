import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import WorkerTesting

/// The real `liverelay tick` in channel mode, killed with SIGKILL after it created the match's channel and
/// before it saved it: the channel is left at APNs with no row naming it; the next tick makes another and
/// starts the devices on that one, and `liverelay channels --gc` deletes the one the crash left.
@Suite("A crash between creating a channel and saving it", .serialized)
struct ChannelKillTests {
    @Test func theCollectorFindsTheChannelTheCrashLeft() async throws {
        let devices = 3
        try await KillPointTests.withBed(
            devices: devices, channels: ["storage-policy": 0], extra: APNsChannelReplayTests.modes("channel")
        ) { bed in
            bed.feed.advance(to: 0)
            let kickOff = KillPointTests.realNow - 47 * 60
            #expect(try await bed.tick(at: kickOff - 60).status == 0)
            bed.feed.advance(to: 1)
            try bed.save()
            // Kill before each write of the kick-off tick in turn, until one lands after the channel's
            // creation (APNs has it) and before its row (the state file has none).
            var orphan: String?
            for n in 1...30 {
                try await bed.restore()
                let created = bed.fake.createdChannels.count
                let killed = try await bed.tick(at: kickOff, kill: "before:\(n)")
                guard killed.status == SIGKILL else { break }
                if bed.fake.createdChannels.count > created,
                    try await SQLiteStore(path: bed.statePath).channels().isEmpty
                {
                    orphan = bed.fake.createdChannels.last
                    break
                }
            }
            let lost = try #require(orphan, "no write boundary between the channel's creation and its row")
            #expect(bed.fake.accepted.isEmpty, "killed before any start went out")
            let listed = try await bed.liverelay(["channels", "--config", bed.setup.configPath])
            #expect(listed.standardOutput.contains("stale   \(lost)  -  unknown to this state file"), "\(listed)")
            // The next tick makes a new channel and starts every device on it.
            let again = try await bed.tick(at: kickOff)
            #expect(again.status == 0, "\(again.standardError)")
            let live = try #require(bed.fake.createdChannels.last)
            #expect(live != lost)
            let starts = bed.fake.accepted.filter { $0.body.contains("\"event\":\"start\"") }
            #expect(starts.count == devices)
            #expect(
                starts.allSatisfy {
                    $0.body.contains(#""input-push-channel":"\#(live)""#)
                })
            // The collector deletes the lost one and keeps the live one.
            let gc = try await bed.liverelay(["channels", "--config", bed.setup.configPath, "--gc"])
            #expect(gc.status == 0, "\(gc.standardError)")
            #expect(bed.fake.deletedChannels == [lost])
            #expect(bed.fake.channels.keys.sorted() == [live])
        }
    }
}
