import LiveRelayCore

extension ProviderKind {
    /// Pushwoosh `startLiveActivity` / `updateLiveActivity`.
    public static let pushwoosh = ProviderKind(rawValue: "pushwoosh")
}

extension PushwooshProviderConfig {
    /// The keys of a `"type": "pushwoosh"` provider entry, composed into the config schema.
    public static let configSchema = ProviderConfigSchema(
        summary: "through Pushwoosh's startLiveActivity and updateLiveActivity",
        required: ["application", "api-token"],
        properties: #"""
            {
                "application": {"type": "string", "minLength": 1, "description": "the Pushwoosh application code."},
                "api-token": {"$ref": "#/$defs/secret", "description": "where the API access token is read from; never the token itself."},
                "endpoint": {"type": "string", "pattern": "^https?://", "description": "a custom server URL instead of the provider's own (tests point it at a loopback fake)."},
                "timeout": {"type": "integer", "minimum": 1, "description": "seconds one request may take. Default 10."},
                "filter-code": {"type": "string", "minLength": 1, "description": "a segment (filter) code of the Pushwoosh application; every start through this provider goes to that segment (startLiveActivity filter_code) instead of the registered devices and users. Updates and ends still go to the activity's live_activity_id. Default: none."}
            }
            """#)
}
