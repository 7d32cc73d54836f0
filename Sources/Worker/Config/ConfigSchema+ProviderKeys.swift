public import Delivery
public import LiveRelayCore

extension ConfigSchema {
    /// A key of a provider entry that its `type` does not read, though another kind does.
    public struct ForeignKey: Sendable, Hashable {
        /// Where the key is: `/provider/key-id`, `/providers/1/application`.
        public var pointer: String
        public var message: String
    }

    /// The keys of each provider entry (`provider`, `providers[i]`) that belong to other kinds than its
    /// `type` (`"type": "fcm"` with `"key-id"`): the schema takes every kind's keys in every entry, so this
    /// says whose key it is. Entries without a known `type` are the schema's to refuse. Pure.
    public static func foreignProviderKeys(in document: JSONValue, kinds: [any ProviderSettings.Type])
        -> [ForeignKey]
    {
        var keysOf: [String: Set<String>] = [:]
        var order: [String] = []
        for kind in kinds {
            keysOf[kind.kind.rawValue] = Set(kind.configSchema.parsedProperties().keys)
            order.append(kind.kind.rawValue)
        }
        var entries: [(String, [String: JSONValue])] = []
        if case .object(let entry)? = document["provider"] { entries.append(("/provider", entry)) }
        if case .array(let list)? = document["providers"] {
            for (i, item) in list.enumerated() {
                if case .object(let entry) = item { entries.append(("/providers/\(i)", entry)) }
            }
        }
        var found: [ForeignKey] = []
        for (pointer, entry) in entries {
            guard case .string(let type)? = entry["type"], let own = keysOf[type] else { continue }
            for key in entry.keys.sorted() where !own.contains(key) {
                let readers = order.filter { keysOf[$0]?.contains(key) == true }
                guard !readers.isEmpty else { continue }
                found.append(
                    ForeignKey(
                        pointer: pointer + "/" + JSONPointer.escape(key),
                        message: "\(key) is a key of \(readers.joined(separator: ", ")), not of \(type)"))
            }
        }
        return found
    }
}
