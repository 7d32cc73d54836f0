public import Delivery
public import LiveRelayCore
public import Rules
import Synchronization

/// The config schema: its own part (``base``) with each provider kind's keys (``ProviderSettings/configSchema``)
/// composed into the `provider` definition. `docs/liverelay.schema.json` is this document for the built-in
/// kinds (a test keeps them equal); a config is checked against the document of every kind the process knows.
public enum ConfigSchema {
    /// The schema document for `kinds`, in their order: `type` lists them with their summaries, an entry of a
    /// type must have that kind's required keys, and each key says which kinds read it. Two kinds may declare
    /// the same key only with the same schema (their descriptions aside); a kind may not redeclare a shared
    /// key. Either is a programming error, stopped here.
    public static func document(kinds: [any ProviderSettings.Type]) -> JSONValue {
        guard case .object(var root)? = try? JSONParser.parse(base), case .object(var defs)? = root["$defs"],
            case .object(var provider)? = defs["provider"], case .object(var properties)? = provider["properties"]
        else { preconditionFailure("the config schema's base is not an object with $defs.provider.properties") }
        // Names and schemas first: the compiler does not take key paths through these metatypes.
        var entries: [(name: String, schema: ProviderConfigSchema)] = []
        for kind in kinds { entries.append((kind.kind.rawValue, kind.configSchema)) }
        let names = entries.map { $0.name }
        var declared: [(key: String, schema: JSONValue, kinds: [(String, String)])] = []
        for (name, kindSchema) in entries {
            for (key, schema) in kindSchema.parsedProperties().sorted(by: { $0.key < $1.key }) {
                precondition(properties[key] == nil, "\(name) redeclares the shared provider key \(key)")
                let description = schema["description"]?.stringValue ?? ""
                var bare = schema.objectValue ?? [:]
                bare["description"] = nil
                if let at = declared.firstIndex(where: { $0.key == key }) {
                    precondition(
                        declared[at].schema == .object(bare),
                        "\(name) declares provider key \(key) unlike \(declared[at].kinds.map { $0.0 })")
                    declared[at].kinds.append((name, description))
                } else {
                    declared.append((key, .object(bare), [(name, description)]))
                }
            }
        }
        for (key, schema, readers) in declared {
            // Kinds that say the same, together: "apns, fcm: a custom server … getui: the domain …".
            var groups: [(kinds: [String], description: String)] = []
            for (kind, description) in readers {
                if let at = groups.firstIndex(where: { $0.description == description }) {
                    groups[at].kinds.append(kind)
                } else {
                    groups.append(([kind], description))
                }
            }
            var members = schema.objectValue ?? [:]
            members["description"] = .string(
                groups.map { "\($0.kinds.joined(separator: ", ")): \($0.description)" }.joined(separator: " "))
            properties[key] = .object(members)
        }
        properties["type"] = .object([
            "enum": .array(names.map { .string($0) }),
            "description": .string(entries.map { "\($0.name) \($0.schema.summary)" }.joined(separator: "; ") + "."),
        ])
        provider["properties"] = .object(properties)
        let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.first ?? ""
        provider["description"] = .string(
            "A provider that delivers pushes: \(list); each type has its own keys beside the shared ones.")
        let conditions: [JSONValue] = entries.filter { !$0.schema.required.isEmpty }.map { entry in
            .object([
                "if": .object([
                    "required": ["type"], "properties": .object(["type": .object(["const": .string(entry.name)])]),
                ]),
                "then": .object(["required": .array(entry.schema.required.map { .string($0) })]),
            ])
        }
        if !conditions.isEmpty { provider["allOf"] = .array(conditions) }
        defs["provider"] = .object(provider)
        root["$defs"] = .object(defs)
        return .object(root)
    }

    /// The compiled schema for the kinds this process knows (``ProviderCatalog/kinds``), compiled again only
    /// when one was registered since.
    public static var schema: JSONSchema {
        let kinds = ProviderCatalog.kinds
        return compiled.withLock { cache in
            if let cache, cache.kinds == kinds.count { return cache.schema }
            do {
                let schema = try JSONSchema(document(kinds: kinds))
                cache = (kinds.count, schema)
                return schema
            } catch {
                preconditionFailure("the config schema does not compile: \(error)")
            }
        }
    }

    private static let compiled = Mutex<(kinds: Int, schema: JSONSchema)?>(nil)
}
