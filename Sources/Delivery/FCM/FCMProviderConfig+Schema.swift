import LiveRelayCore

extension ProviderKind {
    /// Firebase Cloud Messaging HTTP v1.
    public static let fcm = ProviderKind(rawValue: "fcm")
}

extension FCMProviderConfig {
    /// The keys of a `"type": "fcm"` provider entry, composed into the config schema.
    public static let configSchema = ProviderConfigSchema(
        summary: "through Firebase Cloud Messaging HTTP v1", required: ["service-account"],
        properties: #"""
            {
                "service-account": {"$ref": "#/$defs/secret", "description": "where the Google service-account JSON key is read from; never the key itself."},
                "project-id": {"type": "string", "minLength": 1, "description": "the Firebase project. Default: the key file's project_id."},
                "endpoint": {"type": "string", "pattern": "^https?://", "description": "a custom server URL instead of the provider's own (tests point it at a loopback fake)."},
                "token-endpoint": {"type": "string", "pattern": "^https?://", "description": "a custom OAuth 2.0 token endpoint instead of the key file's token_uri (tests)."},
                "timeout": {"type": "integer", "minimum": 1, "description": "seconds one request may take. Default 10."}
            }
            """#)
}
