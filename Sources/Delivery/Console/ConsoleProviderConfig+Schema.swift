import LiveRelayCore

extension ProviderKind {
    /// Prints each push as the APNs request it stands for; delivers nothing.
    public static let console = ProviderKind(rawValue: "console")
}

extension ConsoleProviderConfig {
    /// The keys of a `"type": "console"` provider entry, composed into the config schema.
    public static let configSchema = ProviderConfigSchema(
        summary: "prints each push as the APNs request it stands for", required: [],
        properties: #"""
            {
                "channels": {"type": "object", "additionalProperties": false, "description": "broadcast channels printed: the requests the activities whose activity-modes entry says channel or both would send (the endpoints are ignored). Absent: tokens only.", "properties": \#(APNsProviderConfig.channelsProperties)}
            }
            """#)
}
