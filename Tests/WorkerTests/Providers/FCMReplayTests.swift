import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Testing
import Worker
import WorkerTesting
import _CryptoExtras

/// The recorded match through the real pipeline, the real `CurlTransport` and the fake FCM.
@Suite("Recorded match into the fake FCM")
struct FCMReplayTests {
    typealias Setup = MatchReplay
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static func with(_ body: (Setup, FakeFCM) async throws -> Void) async throws {
        let fake = try await FakeFCM.start(
            authority: Setup.authority, clientEmail: "liverelay@demo-project.iam.gserviceaccount.com",
            projectID: "demo-project", publicKey: key.publicKey)
        try await fake.serving { fake in
            try await Setup.with(
                provider: [
                    "type": "fcm", "bundle-id": "com.example.scores",
                    "service-account": ["file": "service-account.json"],
                    "endpoint": .string(fake.url),
                ],
                files: ["service-account.json": try Setup.serviceAccountJSON(key: key, tokenURI: fake.tokenURL)]
            ) { setup in
                try await body(setup, fake)
            }
        }
    }

    static func register(_ store: SQLiteStore) async throws {
        try await Setup.registerDevice(store)
        try await store.registerAddress(
            RegisteredAddress(device: "iphone-a", provider: "fcm", address: "fcm-registration-iphone-a"), now: 0)
    }

    /// Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite the golden file after an intended change.
    @Test func theFakeRecordsExactlyTheGoldenMessages() async throws {
        try await Self.with { setup, fake in
            _ = try await setup.replay(registering: Self.register, started: Setup.registerActivityToken)
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            #expect(fake.issuedTokens == 1)
            let (actual, expected) = try Setup.golden(
                "expected-fcm.json", try FakeProviderRequest.goldenJSON(fake.accepted))
            #expect(actual == expected)
            let events = try fake.accepted.map { request in
                let message = request.json["message"] as! [String: Any]
                let apns = message["apns"] as! [String: Any]
                let aps = (apns["payload"] as! [String: Any])["aps"] as! [String: Any]
                return try Setup.eventLine(aps["event"] as! String, aps["content-state"])
            }
            #expect(events == (try Setup.apnsEvents()))
        }
    }

    @Test func anUnregisteredRegistrationTokenIsDroppedAndNeverUsedAgain() async throws {
        try await Self.with { setup, fake in
            fake.unregister("fcm-registration-iphone-a")
            let store = try await setup.replay(registering: Self.register, started: Setup.registerActivityToken)
            #expect(fake.rejections.count == 1, "one answer, no retry, no later push: \(fake.rejections)")
            #expect(try await store.addresses(provider: "fcm").isEmpty)
            #expect(
                try await store.registerAddress(
                    RegisteredAddress(device: "iphone-a", provider: "fcm", address: "fcm-registration-iphone-a"), now: 1
                )
                    == false)
        }
    }

    @Test func noSecretAppearsInTheLogs() async throws {
        try await Self.with { setup, fake in
            fake.script([FakeFCM.Fault(status: 503, canonical: "UNAVAILABLE")])
            let logs = CapturingLogHandler.Store()
            _ = try await setup.replay(
                logger: CapturingLogHandler.logger(logs), registering: Self.register,
                started: Setup.registerActivityToken)
            let text = logs.all.joined(separator: "\n")
            #expect(text.contains("push will be retried"))
            #expect(!text.contains("ya29."))
            #expect(!text.contains("PRIVATE KEY"))
            #expect(!text.contains("eyJ"))
        }
    }
}
