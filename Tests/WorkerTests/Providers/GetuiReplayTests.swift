import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Testing
import Worker
import WorkerTesting

/// The recorded match through the real pipeline, the real `CurlTransport` and the fake Getui.
@Suite("Recorded match into the fake Getui")
struct GetuiReplayTests {
    typealias Setup = MatchReplay
    static let masterSecret = "getui-master-secret-of-the-replay"
    static let cid = "getui-cid-iphone-a"

    static func with(_ body: (Setup, FakeGetui) async throws -> Void) async throws {
        let fake = try await FakeGetui.start(
            authority: Setup.authority, appID: "demoAppId0123", appKey: "demoAppKey456", masterSecret: masterSecret)
        try await fake.serving { fake in
            try await Setup.with(
                provider: [
                    "type": "getui", "bundle-id": "com.example.scores", "app-id": "demoAppId0123",
                    "app-key": "demoAppKey456", "master-secret": ["file": "getui.secret"],
                    "endpoint": .string(fake.url),
                ],
                files: ["getui.secret": masterSecret]
            ) { setup in
                try await body(setup, fake)
            }
        }
    }

    static func register(_ store: SQLiteStore) async throws {
        try await store.subscribe(device: "iphone-a", to: Setup.match, now: 0)
        try await store.registerAddress(RegisteredAddress(device: "iphone-a", provider: "getui", address: cid), now: 0)
        try await store.registerActivityAddress(activity: "match-760499", provider: "getui", address: "la-760499")
    }

    /// Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite the golden file after an intended change.
    @Test func theFakeRecordsExactlyTheGoldenMessages() async throws {
        try await Self.with { setup, fake in
            _ = try await setup.replay(registering: Self.register)
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            #expect(fake.issuedTokens == 1)
            let (actual, expected) = try Setup.golden(
                "expected-getui.json", try FakeProviderRequest.goldenJSON(fake.accepted))
            #expect(actual == expected)
            #expect(!actual.contains(Self.masterSecret))
            let events = try fake.accepted.map { request in
                let ios = (request.json["push_channel"] as! [String: Any])["ios"] as! [String: Any]
                let aps = ios["aps"] as! [String: Any]
                #expect((request.json["audience"] as? [String: Any])?["cid"] as? [String] == [Self.cid])
                if aps["event"] as? String != "start" { #expect(ios["laId"] as? String == "la-760499") }
                return try Setup.eventLine(aps["event"] as! String, aps["content-state"])
            }
            #expect(events == (try Setup.apnsEvents()))
            #expect(Set(fake.requestIDs).count == fake.requestIDs.count)
        }
    }

    @Test func anInvalidCidIsDroppedAndNeverUsedAgain() async throws {
        try await Self.with { setup, fake in
            fake.invalidate(cid: Self.cid)
            let store = try await setup.replay(registering: Self.register)
            #expect(fake.rejections.count == 1, "one answer, no retry, no later push: \(fake.rejections)")
            #expect(try await store.addresses(provider: "getui").isEmpty)
            #expect(
                try await store.registerAddress(
                    RegisteredAddress(device: "iphone-a", provider: "getui", address: Self.cid), now: 1) == false)
        }
    }

    @Test func noSecretAppearsInTheLogs() async throws {
        try await Self.with { setup, fake in
            fake.script([FakeGetui.Fault(code: 2, msg: "service is starting")])
            let logs = CapturingLogHandler.Store()
            _ = try await setup.replay(logger: CapturingLogHandler.logger(logs), registering: Self.register)
            let text = logs.all.joined(separator: "\n")
            #expect(text.contains("push will be retried"))
            #expect(!text.contains(Self.masterSecret))
            for token in fake.validTokens { #expect(!text.contains(token)) }
        }
    }
}
