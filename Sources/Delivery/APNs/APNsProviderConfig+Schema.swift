import LiveRelayCore

extension ProviderKind {
    /// Apple Push Notification service, token authentication over HTTP/2.
    public static let apns = ProviderKind(rawValue: "apns")
}

extension APNsProviderConfig {
    /// The keys of a `"type": "apns"` provider entry, composed into the config schema.
    public static let configSchema = ProviderConfigSchema(
        summary: "sends it to Apple (token authentication over HTTP/2)", required: ["key-id", "team-id", "key"],
        properties: #"""
            {
                "key-id": {"type": "string", "pattern": "^[A-Z0-9]{10}$", "description": "the 10-character id of the .p8 signing key (Certificates, Identifiers & Profiles → Keys)."},
                "team-id": {"type": "string", "pattern": "^[A-Z0-9]{10}$", "description": "the 10-character team id of the developer account."},
                "key": {"$ref": "#/$defs/secret", "description": "where the .p8 key (PEM) is read from; never the key itself."},
                "environment": {"enum": ["production", "sandbox"], "description": "production (TestFlight and App Store builds) or sandbox (development builds). Only tokens registered for it are used. Default production."},
                "endpoint": {"type": "string", "pattern": "^https?://", "description": "a custom server URL instead of the provider's own (tests point it at a loopback fake)."},
                "connections": {"type": "integer", "minimum": 1, "maximum": 16, "description": "threads of the push lane, each with connections of its own: one more to the server each time every stream of its connections is taken, up to 16. Default 1."},
                "max-concurrent-streams": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "the most requests in flight on one connection (the provider keeps connections × this many in flight); the server's own limit applies too: the lane holds the rest until streams free up. Default 1000 (APNs' own limit)."},
                "token-refresh": {"type": "integer", "minimum": 1200, "maximum": 3300, "description": "seconds between provider tokens (JWT), 20 to 55 minutes. Default 3000."},
                "timeout": {"type": "integer", "minimum": 1, "description": "seconds one request may take. Default 10."},
                "input-push-token": {"type": "boolean", "description": "ask every started activity for its update token (iOS 18 input-push-token). Default false."},
                "channels": {"type": "object", "additionalProperties": false, "description": "broadcast channels (iOS 18) for the activities whose activity-modes entry says channel or both. Absent: tokens only.", "properties": \#(channelsProperties)}
            }
            """#)

    /// The keys of `channels`, which the console's `channels` shares.
    public static let channelsProperties = #"""
        {
            "storage-policy": {"enum": [0, 1], "description": "0: APNs stores no message (a higher publishing budget; for scores); 1: it keeps the most recent for up to 8 hours. Applies to channels created from now on. Default 0."},
            "broadcast-endpoint": {"type": "string", "pattern": "^https?://", "description": "The server broadcasts are posted to (/4/broadcasts/apps/<bundle-id>). Apple's pages disagree: the prose names the push host, the sample frames api-broadcast.push.apple.com. Default: the push host of environment (or endpoint)."},
            "management-endpoint": {"type": "string", "pattern": "^https?://", "description": "The channel-management server. Default https://api-manage-broadcast.push.apple.com:2196 (production) or https://api-manage-broadcast.sandbox.push.apple.com:2195 (sandbox); with endpoint set, endpoint."},
            "delete-after": {"type": "integer", "minimum": 0, "maximum": 14400, "description": "Seconds after an end without a dismissal-date at which its channel is deleted (the activity leaves the lock screen at most 4 hours after its end). Default 14400."},
            "max-broadcasts": {"type": "integer", "minimum": 0, "description": "The most broadcasts to one channel in any window seconds; one over it waits in the outbox (a newer state replaces it). APNs throttles a channel updated too often without publishing the rate; the activity's budget applies first. 0: no pace. Default 30."},
            "window": {"type": "integer", "minimum": 1, "description": "The pace's window, in seconds. Default 60."}
        }
        """#
}
