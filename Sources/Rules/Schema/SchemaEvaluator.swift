import LiveRelayCore

/// Checks an instance against compiled nodes and collects every failure.
struct SchemaEvaluator {
    let nodes: [SchemaNode]

    func evaluate(_ index: Int, _ instance: JSONValue, at path: InstancePath) -> [SchemaFailure] {
        let node = nodes[index]
        if node.isFalse { return [.forbidden(path)] }
        var out: [SchemaFailure] = []
        if let ref = node.ref { out += evaluate(ref, instance, at: path) }
        if let types = node.types, !types.contains(where: { $0.accepts(instance) }) {
            // Nothing else this node says about the value is worth reading once its type is wrong.
            out.append(.typeMismatch(types, instance, path))
            return out
        }
        if let allowed = node.allowedValues, !allowed.contains(instance) {
            out.append(.valueMismatch(allowed, instance, path))
        }
        if let constant = node.constant, constant != instance {
            out.append(.valueMismatch([constant], instance, path))
        }
        switch instance {
        case .int, .double, .decimal: checkNumber(node, instance, path, &out)
        case .string(let s): checkString(node, s, path, &out)
        case .array(let elements): checkArray(node, elements, path, &out)
        case .object(let members): checkObject(node, members, path, &out)
        case .null, .bool: break
        }
        checkCombinators(node, instance, path, &out)
        return out
    }

    private func checkNumber(
        _ node: SchemaNode, _ instance: JSONValue, _ path: InstancePath, _ out: inout [SchemaFailure]
    ) {
        guard let x = instance.doubleValue else { return }
        let checks: [(Bound?, (Double, Double) -> Bool, String)] = [
            (node.minimum, { $0 >= $1 }, "at least"),
            (node.exclusiveMinimum, { $0 > $1 }, "greater than"),
            (node.maximum, { $0 <= $1 }, "at most"),
            (node.exclusiveMaximum, { $0 < $1 }, "less than"),
        ]
        for case (let bound?, let holds, let words) in checks where !holds(x, bound.value) {
            out.append(
                SchemaFailure(path, "\(path.subject) must be \(words) \(bound.text), not \(instance.jsonString())"))
        }
    }

    private func checkString(_ node: SchemaNode, _ s: String, _ path: InstancePath, _ out: inout [SchemaFailure]) {
        // JSON Schema measures strings in code points.
        let length = s.unicodeScalars.count
        if let min = node.minLength, length < min {
            out.append(.size(path, atLeast: true, min, "character", actual: length, long: true))
        }
        if let max = node.maxLength, length > max {
            out.append(.size(path, atLeast: false, max, "character", actual: length, long: true))
        }
        if let pattern = node.pattern, !pattern.matches(s) {
            out.append(
                SchemaFailure(path, "\(path.subject) must match the pattern \(pattern.source), not \(quoted(s))"))
        }
    }

    private func checkArray(
        _ node: SchemaNode, _ elements: [JSONValue], _ path: InstancePath, _ out: inout [SchemaFailure]
    ) {
        for (i, element) in elements.enumerated() {
            if i < node.prefixItems.count {
                out += evaluate(node.prefixItems[i], element, at: path.appending(.index(i)))
            } else if let items = node.items {
                if nodes[items].isFalse {
                    out.append(.size(path, atLeast: false, node.prefixItems.count, "element", actual: elements.count))
                    break
                }
                out += evaluate(items, element, at: path.appending(.index(i)))
            }
        }
        if let min = node.minItems, elements.count < min {
            out.append(.size(path, atLeast: true, min, "element", actual: elements.count))
        }
        if let max = node.maxItems, elements.count > max {
            out.append(.size(path, atLeast: false, max, "element", actual: elements.count))
        }
        if node.uniqueItems {
            var first: [JSONValue: Int] = [:]
            for (i, element) in elements.enumerated() {
                if let j = first[element] {
                    out.append(SchemaFailure(path.appending(.index(i)), "element \(i) is a duplicate of element \(j)"))
                } else {
                    first[element] = i
                }
            }
        }
    }

    private func checkObject(
        _ node: SchemaNode, _ members: [String: JSONValue], _ path: InstancePath, _ out: inout [SchemaFailure]
    ) {
        for key in node.required where members[key] == nil { out.append(.missing(key, path)) }
        for key in members.keys.sorted() {
            let value = members[key]!
            let memberPath = path.appending(.key(key))
            var matched = false
            if let property = node.properties[key] {
                matched = true
                out += evaluate(property, value, at: memberPath)
            }
            for (pattern, index) in node.patternProperties where pattern.matches(key) {
                matched = true
                out += evaluate(index, value, at: memberPath)
            }
            if !matched, let additional = node.additionalProperties {
                if nodes[additional].isFalse {
                    let unused = node.properties.keys.filter { members[$0] == nil }
                    let guess = Suggestion.closest(to: key, among: unused)
                    out.append(.unknownKey(key, suggestion: guess, memberPath))
                } else {
                    out += evaluate(additional, value, at: memberPath)
                }
            }
            if let names = node.propertyNames {
                var keyPath = memberPath
                keyPath.isKeyName = true
                out += evaluate(names, .string(key), at: keyPath).map { failure in
                    var failure = failure
                    failure.atKey = true
                    return failure
                }
            }
        }
        if let min = node.minProperties, members.count < min {
            out.append(.size(path, atLeast: true, min, "key", actual: members.count))
        }
        if let max = node.maxProperties, members.count > max {
            out.append(.size(path, atLeast: false, max, "key", actual: members.count))
        }
    }
}
