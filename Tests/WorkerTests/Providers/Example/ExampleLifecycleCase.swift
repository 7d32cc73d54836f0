import LiveRelayCore
import LiveRelayTesting
import Worker
import WorkerTesting

extension FakeProviderCase {
    /// The example service for the life-cycle scenarios; it registers its kind with the catalog first.
    static let example = FakeProviderCase(name: "example") {
        ProviderCatalog.register(ExampleProviderConfig.self)
        let fake = try await FakeExample.start(authority: MatchReplay.authority, apiKey: "example-key")
        return Running(
            provider: ["type": "example", "endpoint": .string(fake.url), "api-key": ["file": "example.key"]],
            files: ["example.key": "example-key"], register: registerTwoDevices, setOutage: { fake.setOutage($0) },
            events: { fake.accepted.map { event(of: $0.body, at: []) } }, stop: { try await fake.stop() })
    }
}
