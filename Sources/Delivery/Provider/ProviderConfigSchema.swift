public import LiveRelayCore

/// The config keys one provider kind adds to a `provider` entry, declared in its folder beside its settings
/// type: the config schema (`docs/liverelay.schema.json`) is composed from the shared keys and every kind's
/// (`ConfigSchema`), so adding a provider edits no shared schema.
public struct ProviderConfigSchema: Sendable {
    /// What the kind does, after its name in the `type` key's description ("sends it to Apple …").
    public var summary: String
    /// The keys an entry of this type must have.
    public var required: [String]
    /// Its keys, as a JSON object text: name → JSON Schema, each with a `description` (written without the
    /// kind's name: the composed schema says which kinds a key belongs to). `#/$defs/secret` is a secret
    /// reference (`{"env": …}` or `{"file": …}`). A key several kinds declare has the same schema in each,
    /// its description aside.
    public var properties: String

    /// A kind's keys.
    public init(summary: String, required: [String] = [], properties: String = "{}") {
        self.summary = summary
        self.required = required
        self.properties = properties
    }

    /// The keys parsed; a kind whose text is not a JSON object is a programming error, found by the config
    /// schema's tests.
    public func parsedProperties() -> [String: JSONValue] {
        guard let parsed = try? JSONParser.parse(properties), case .object(let members) = parsed else {
            preconditionFailure("a provider's config schema properties are not a JSON object")
        }
        return members
    }
}
