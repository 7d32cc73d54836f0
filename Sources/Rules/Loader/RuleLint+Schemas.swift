import LiveRelayCore

/// Paths a rule reads checked against the schemas that say what is there: the contract's content-state
/// (`activity.state.…`) and the file's subscription parameters (`subscription.parameters.…`).
extension RuleLint {
    /// A path read from `activity.state` against the contract's content-state: a member of an object the
    /// contract closes (`additionalProperties: false`) that it does not name is never there, so the read is
    /// always null.
    mutating func statePath(
        _ members: [String], in schema: JSONValue, root: String, path: String, at pointer: String
    ) {
        guard
            let (name, parent, properties) = Self.undeclared(
                members, in: schema, root: root, open: { $0["additionalProperties"] != .bool(false) })
        else { return }
        add(
            pointer,
            "\"\(path)\": the contract's content-state has no \(name) at \(parent)\(Self.hint(name, parent, properties)), so this reads null; it has \(Self.list(properties))",
            atKey: true)
    }

    /// A path read from `subscription.parameters` against the parameters the file declares: a member an
    /// object's schema does not name is never there (the token API refuses it), unless the schema leaves
    /// its objects open (`additionalProperties` other than `false`, `patternProperties`, a `$ref`, or
    /// alternatives that name or allow members of their own).
    mutating func parameterPath(_ members: [String], in schema: JSONValue, path: String, at pointer: String) {
        guard
            let (name, parent, properties) = Self.undeclared(
                members, in: schema, root: "subscription.parameters", open: Self.mayHoldOthers)
        else { return }
        add(
            pointer,
            "\"\(path)\": the file's subscription parameters have no \(name) at \(parent)\(Self.hint(name, parent, properties)); they have \(Self.list(properties))",
            atKey: true)
    }

    /// The first member of `members` an object of `schema` does not name where that object is not `open`:
    /// its name, the dotted path of its parent, and the names the parent has; `nil` when every one may be
    /// there.
    private static func undeclared(
        _ members: [String], in schema: JSONValue, root: String, open: (JSONValue) -> Bool
    ) -> (name: String, parent: String, properties: [String])? {
        var schema = schema
        for (depth, name) in members.enumerated() {
            let properties = schema["properties"]?.objectValue ?? [:]
            if let sub = properties[name] {
                schema = sub
                continue
            }
            guard !open(schema) else { return nil }
            return (name, ([root] + members[..<depth]).joined(separator: "."), Array(properties.keys))
        }
        return nil
    }

    /// Whether a parameters object may hold members its `properties` do not name.
    private static func mayHoldOthers(_ schema: JSONValue) -> Bool {
        if let open = schema["additionalProperties"], open != .bool(false) { return true }
        if schema["patternProperties"] != nil || schema["$ref"] != nil { return true }
        return ["allOf", "anyOf", "oneOf"].contains { combinator in
            (schema[combinator]?.arrayValue ?? []).contains {
                $0["properties"] != nil || $0["$ref"] != nil
                    || ($0["additionalProperties"].map { $0 != .bool(false) } ?? false)
            }
        }
    }

    private static func hint(_ name: String, _ parent: String, _ properties: [String]) -> String {
        Suggestion.closest(to: name, among: properties).map { " (did you mean \(parent).\($0)?)" } ?? ""
    }

    private static func list(_ properties: [String]) -> String {
        properties.isEmpty ? "no fields there" : properties.sorted().joined(separator: ", ")
    }
}
