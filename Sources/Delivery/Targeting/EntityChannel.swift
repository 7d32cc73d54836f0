public import LiveRelayCore

/// The channel an entity's personal activities share in `channel` mode: one per attributes type
/// and entity (an alert of another type could not read the broadcast's content-state). Its record is kept
/// under a key of its own, not an activity's: `@entity["PersonalAlertAttributes","markets","BTCUSDT"]`.
/// Pure.
public enum EntityChannel {
    static let prefix = "@entity"

    /// The key of the channel record of `entity`'s personal activities of `attributesType`.
    public static func key(attributesType: String, entity: EntityKey) -> ActivityKey {
        ActivityKey(
            prefix + JSONValue.array([.string(attributesType), .string(entity.feed), .string(entity.id)]).jsonString())
    }

    /// The attributes type and entity of a key made by ``key(attributesType:entity:)``; `nil` for an
    /// activity's key.
    public static func parse(_ key: ActivityKey) -> (attributesType: String, entity: EntityKey)? {
        guard key.rawValue.hasPrefix(prefix + "["),
            case .array(let parts)? = try? JSONParser.parse(String(key.rawValue.dropFirst(prefix.count))),
            parts.count == 3, case .string(let type) = parts[0], case .string(let feed) = parts[1],
            case .string(let id) = parts[2]
        else { return nil }
        return (type, EntityKey(feed: feed, id: id))
    }
}
