import Delivery
import LiveRelayCore

// A fifth provider that exists only in the tests, added the way any provider is: this folder (its kind, its
// config keys, its settings, its error table, its fake, its life-cycle entry, which registers it with
// `ProviderCatalog`) and one line in `FakeProviderCase.allCases`. Nothing else in Sources or Tests names it.

extension ProviderKind {
    /// The tests' example service: one JSON request per target, addressed by its APNs token.
    static let example = ProviderKind(rawValue: "example")
}

/// `{"type": "example", "endpoint": "https://…", "api-key": {"file": "example.key"}}`.
struct ExampleProviderConfig: ProviderSettings {
    static let kind = ProviderKind.example

    static let configSchema = ProviderConfigSchema(
        summary: "through the tests' example service (one request per APNs token)", required: ["endpoint", "api-key"],
        properties: #"""
            {
                "endpoint": {"type": "string", "pattern": "^https?://", "description": "the service's URL."},
                "api-key": {"$ref": "#/$defs/secret", "description": "where the service's API key is read from; never the key itself."},
                "timeout": {"type": "integer", "minimum": 1, "description": "seconds one request may take. Default 10."}
            }
            """#)

    var endpoint: String
    var apiKey: SecretReference
    var timeout: Int

    enum CodingKeys: String, CodingKey {
        case endpoint, timeout
        case apiKey = "api-key"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        endpoint = try c.decode(String.self, forKey: .endpoint)
        apiKey = try c.decode(SecretReference.self, forKey: .apiKey)
        timeout = try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 10
    }

    func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider {
        ExampleProvider(
            endpoint: endpoint, apiKey: try context.secret(apiKey, key: "api-key"), timeout: .seconds(timeout),
            transport: try context.transport())
    }
}
