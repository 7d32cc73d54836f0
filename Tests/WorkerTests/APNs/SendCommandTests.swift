import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Store
import Testing
import Worker
import WorkerTesting
import _CryptoExtras

/// `liverelay send` as a user runs it, against the fake APNs.
@Suite struct SendCommandTests {
    typealias Setup = MatchReplay
    let liverelay = Repository.executable("liverelay")

    @Test func aManualStartReachesTheFakeAPNs() async throws {
        try await Setup.withFakeAPNs { setup, fake in
            let run = try await CommandRun.run(
                liverelay,
                [
                    "send", "--config", setup.configPath, "--provider", "apns", "--event", "start", "--token",
                    Setup.startToken, "--attributes-type", "MatchAttributes", "--attributes",
                    #"{"homeTeam": "Australia"}"#,
                    "--content-state", #"{"homeScore": 0}"#, "--alert-title", "Kick-off", "--timestamp", "1783101660",
                    "--input-push-token",
                ])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardError.contains("start delivered by apns"))
            let push = try #require(fake.accepted.first)
            #expect(push.token == Setup.startToken)
            #expect(
                push.body
                    == #"{"aps":{"alert":{"title":"Kick-off"},"attributes":{"homeTeam":"Australia"},"attributes-type":"MatchAttributes","content-state":{"homeScore":0},"event":"start","input-push-token":1,"timestamp":1783101660}}"#
            )
        }
    }

    @Test func aStartWithoutAnAlertIsRefusedBeforeSending() async throws {
        try await Setup.withFakeAPNs { setup, fake in
            let run = try await CommandRun.run(
                liverelay,
                [
                    "send", "--config", setup.configPath, "--event", "start", "--token", Setup.startToken,
                    "--attributes-type", "MatchAttributes", "--attributes", "{}", "--content-state", "{}",
                ])
            #expect(run.status == 1)
            #expect(run.standardError.contains("missing_alert"))
            #expect(fake.requestCount == 0)
        }
    }

    @Test func anUnregisteredTokenSaysSo() async throws {
        try await Setup.withFakeAPNs { setup, fake in
            fake.unregister(Setup.activityToken)
            let run = try await CommandRun.run(
                liverelay,
                [
                    "send", "--config", setup.configPath, "--event", "end", "--token", Setup.activityToken,
                    "--content-state", "{}",
                ])
            #expect(run.status == 1)
            #expect(run.standardError.contains("Unregistered (410)"))
        }
    }

    @Test func helpExplainsTheCommand() async throws {
        let run = try await CommandRun.run(liverelay, ["send", "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("Send one Live Activity push"))
        #expect(run.standardOutput.contains("--provider"))
    }

    @Test func theAPNsProviderSectionDecodesAndItsProblemsAreReported() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("liverelay.json").path
        try #"""
        {"provider": {"type": "apns", "bundle-id": "com.example.scores", "key-id": "ABC123DEFG", "team-id": "DEF123GHIJ",
          "key": {"file": "missing.p8"}, "environment": "sandbox", "connections": 2, "max-concurrent-streams": 500}}
        """#.write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try ConfigLoader.load(path: path)
        let apns = try #require(loaded.config.provider.settings as? APNsProviderConfig)
        #expect(loaded.config.provider.kind == .apns)
        #expect(apns.environment == .sandbox)
        #expect(apns.connections == 2 && apns.maxConcurrentStreams == 500 && apns.tokenRefresh == 3000)
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        await #expect(throws: Diagnostics.self) {
            try await LiveRelayWorker.build(loaded, rules: RuleSet(), store: store, environment: .test())
        }
        do {
            _ = try await LiveRelayWorker.build(loaded, rules: RuleSet(), store: store, environment: .test())
        } catch {
            #expect(error.items.map(\.message) == ["provider.key: secret from file missing.p8 cannot be read"])
        }
        try #"{"provider": {"type": "apns", "key-id": "abc"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: Diagnostics.self) { try ConfigLoader.load(path: path) }
    }
}

/// `liverelay send` through the providers that need more than an APNs token.
@Suite struct SendCommandProviderTests {
    let liverelay = Repository.executable("liverelay")

    @Test func fcmTakesTheRegistrationToken() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let fake = try await FakeFCM.start(
            authority: MatchReplay.authority, clientEmail: "liverelay@demo-project.iam.gserviceaccount.com",
            projectID: "demo-project", publicKey: key.publicKey)
        try await fake.serving { fake in
            try await MatchReplay.with(
                provider: [
                    "type": "fcm", "bundle-id": "com.example.scores", "service-account": ["file": "sa.json"],
                    "endpoint": .string(fake.url),
                ],
                files: ["sa.json": try MatchReplay.serviceAccountJSON(key: key, tokenURI: fake.tokenURL)]
            ) { setup in
                let update = [
                    "send", "--config", setup.configPath, "--provider", "fcm", "--event", "update", "--token",
                    MatchReplay.activityToken, "--content-state", #"{"homeScore": 1}"#,
                ]
                let without = try await CommandRun.run(liverelay, update)
                #expect(without.status == 1)
                #expect(without.standardError.contains("no FCM registration token for the device"))
                let run = try await CommandRun.run(liverelay, update + ["--device-address", "fcm-registration-a"])
                #expect(run.status == 0, "\(run.standardError)")
                let message = try #require(fake.accepted.first?.json["message"] as? [String: Any])
                #expect(message["token"] as? String == "fcm-registration-a")
            }
        }
    }

    @Test func getuiTakesTheCidAndTheActivityID() async throws {
        let fake = try await FakeGetui.start(
            authority: MatchReplay.authority, appID: "demoAppId0123", appKey: "demoAppKey456", masterSecret: "ms")
        try await fake.serving { fake in
            try await MatchReplay.with(
                provider: [
                    "type": "getui", "app-id": "demoAppId0123", "app-key": "demoAppKey456",
                    "master-secret": ["file": "getui.secret"], "endpoint": .string(fake.url),
                ],
                files: ["getui.secret": "ms"]
            ) { setup in
                let run = try await CommandRun.run(
                    liverelay,
                    [
                        "send", "--config", setup.configPath, "--provider", "getui", "--event", "update",
                        "--device-address", "0123456789abcdef0123456789abcdef", "--activity-id", "la-7",
                        "--content-state", #"{"homeScore": 1}"#,
                    ])
                #expect(run.status == 0, "\(run.standardError)")
                let message = try #require(fake.accepted.first?.json)
                #expect(
                    (message["audience"] as? [String: Any])?["cid"] as? [String] == ["0123456789abcdef0123456789abcdef"]
                )
                let ios = (message["push_channel"] as? [String: Any])?["ios"] as? [String: Any]
                #expect(ios?["laId"] as? String == "la-7")
            }
        }
    }
}
