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
        var schema = schema
        for (depth, name) in members.enumerated() {
            let properties = schema["properties"]?.objectValue ?? [:]
            if let sub = properties[name] {
                schema = sub
                continue
            }
            guard schema["additionalProperties"] == .bool(false) else { return }
            let parent = ([root] + members[..<depth]).joined(separator: ".")
            let hint =
                Suggestion.closest(to: name, among: properties.keys).map { " (did you mean \(parent).\($0)?)" } ?? ""
            let known = properties.keys.sorted().joined(separator: ", ")
            add(
                pointer,
                "\"\(path)\": the contract's content-state has no \(name) at \(parent)\(hint), so this reads null; it has \(known.isEmpty ? "no fields there" : known)",
                atKey: true)
            return
        }
    }

    /// A path read from `subscription.parameters` against the parameters the file declares: a member an
    /// object's schema does not name is never there (the token API refuses it), unless the schema leaves
    /// its objects open (`additionalProperties` other than `false`, or `patternProperties`).
    mutating func parameterPath(_ members: [String], in schema: JSONValue, path: String, at pointer: String) {
        var schema = schema
        for (depth, name) in members.enumerated() {
            let properties = schema["properties"]?.objectValue ?? [:]
            if let sub = properties[name] {
                schema = sub
                continue
            }
            if let open = schema["additionalProperties"], open != .bool(false) { return }
            if schema["patternProperties"] != nil || schema["$ref"] != nil { return }
            // Alternatives that name members of their own may give this one.
            for combinator in ["allOf", "anyOf", "oneOf"] {
                let alternatives = schema[combinator]?.arrayValue ?? []
                if alternatives.contains(where: { $0["properties"] != nil || $0["$ref"] != nil }) { return }
                if alternatives.contains(where: { $0["additionalProperties"].map { $0 != .bool(false) } ?? false }) {
                    return
                }
            }
            let parent = (["subscription.parameters"] + members[..<depth]).joined(separator: ".")
            let hint =
                Suggestion.closest(to: name, among: properties.keys).map { " (did you mean \(parent).\($0)?)" } ?? ""
            let known = properties.keys.sorted().joined(separator: ", ")
            add(
                pointer,
                "\"\(path)\": the file's subscription parameters have no \(name) at \(parent)\(hint); they have \(known.isEmpty ? "no fields there" : known)",
                atKey: true)
            return
        }
    }
}
