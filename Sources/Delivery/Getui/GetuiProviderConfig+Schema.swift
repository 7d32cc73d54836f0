import LiveRelayCore

extension ProviderKind {
    /// Getui RestAPI v2.
    public static let getui = ProviderKind(rawValue: "getui")
}

extension GetuiProviderConfig {
    /// The keys of a `"type": "getui"` provider entry, composed into the config schema.
    public static let configSchema = ProviderConfigSchema(
        summary: "through Getui RestAPI v2 (push to cid, push_channel.ios liveactivity)",
        required: ["app-id", "app-key", "master-secret"],
        properties: #"""
            {
                "app-id": {"type": "string", "minLength": 1, "description": "the Getui app id (AppID)."},
                "app-key": {"type": "string", "minLength": 1, "description": "the Getui app key (AppKey), signed into the auth call."},
                "master-secret": {"$ref": "#/$defs/secret", "description": "where the app's MasterSecret is read from; never the secret itself."},
                "endpoint": {"type": "string", "pattern": "^https?://", "description": "the domain of a custom server instead of https://restapi.getui.com (tests point it at a loopback fake)."},
                "timeout": {"type": "integer", "minimum": 1, "description": "seconds one request may take. Default 10."},
                "auto-badge": {"type": "string", "minLength": 1, "description": "push_channel.ios.auto_badge sent with every push (+1, 0, …). Default: none."}
            }
            """#)
}
