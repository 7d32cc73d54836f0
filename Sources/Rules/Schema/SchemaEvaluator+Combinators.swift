import LiveRelayCore

/// `allOf`, `anyOf`, `oneOf`, `not` and `if`/`then`/`else`, and how failed alternatives are reported.
extension SchemaEvaluator {
    func checkCombinators(_ node: SchemaNode, _ instance: JSONValue, _ path: InstancePath, _ out: inout [SchemaFailure])
    {
        for index in node.allOf { out += evaluate(index, instance, at: path) }
        if !node.anyOf.isEmpty {
            let results = node.anyOf.map { evaluate($0, instance, at: path) }
            if !results.contains(where: \.isEmpty) { out += closestAlternative(results, instance, path) }
        }
        if !node.oneOf.isEmpty {
            let results = node.oneOf.map { evaluate($0, instance, at: path) }
            let passing = results.indices.filter { results[$0].isEmpty }
            if passing.isEmpty {
                out += closestAlternative(results, instance, path)
            } else if passing.count > 1 {
                let which = SchemaFailure.listed(passing.map { "#" + nodes[node.oneOf[$0]].location }, "and")
                out.append(
                    SchemaFailure(path, "\(path.subject) must match exactly one alternative, but matches \(which)"))
            }
        }
        if let not = node.not, evaluate(not, instance, at: path).isEmpty {
            out.append(SchemaFailure(path, "\(path.subject) must not match the schema at #\(nodes[not].location)"))
        }
        if let condition = node.ifNode {
            if evaluate(condition, instance, at: path).isEmpty {
                if let then = node.thenNode {
                    out += explain(evaluate(then, instance, at: path), by: node.conditionKeys, of: instance)
                }
            } else if let otherwise = node.elseNode {
                out += evaluate(otherwise, instance, at: path)
            }
        }
    }

    /// What to report when every alternative of `anyOf`/`oneOf` fails.
    ///
    /// Alternatives that want another type altogether are irrelevant unless all of them do, in which case
    /// the types are merged: `must be a number or an object, not a string`. Alternatives that only reject the
    /// value itself (`const`, `enum`) are merged the same way: `must be one of "a", "b", not "c"`. Otherwise
    /// the closest alternative wins, so that a typo inside the intended one gets its own precise message: the
    /// one whose shallowest failure is deepest (its outer structure matched), then the one with fewest failures.
    func closestAlternative(_ results: [[SchemaFailure]], _ instance: JSONValue, _ path: InstancePath)
        -> [SchemaFailure]
    {
        var wantedTypes: [SchemaType] = []
        var candidates: [Int] = []
        for (i, failures) in results.enumerated() {
            var rejectsType = false
            for case let failure in failures where failure.isAt(path) {
                guard case .type(let types) = failure.kind else { continue }
                rejectsType = true
                wantedTypes += types.filter { !wantedTypes.contains($0) }
            }
            if !rejectsType { candidates.append(i) }
        }
        if candidates.isEmpty { return [.typeMismatch(wantedTypes, instance, path)] }

        var wantedValues: [JSONValue] = []
        let onlyValues = candidates.allSatisfy { i in
            guard results[i].count == 1, results[i][0].isAt(path), case .value(let values) = results[i][0].kind
            else { return false }
            wantedValues += values.filter { !wantedValues.contains($0) }
            return true
        }
        if onlyValues { return [.valueMismatch(wantedValues, orTypes: wantedTypes, instance, path)] }
        // Alternatives that each want one more key (`anyOf: [{required: [a]}, {required: [b]}]`) want one of
        // them: `missing required key "body" or "tokens"`.
        let wantedKeys = candidates.compactMap { i -> String? in
            guard results[i].count == 1, results[i][0].isAt(path), case .missing(let key) = results[i][0].kind
            else { return nil }
            return key
        }
        if wantedKeys.count == candidates.count, wantedKeys.count > 1 {
            return [
                SchemaFailure(
                    path, "missing required key " + SchemaFailure.listed(wantedKeys.map(quoted), "or"),
                    atKey: true, kind: .missing(wantedKeys[0]))
            ]
        }

        func rank(_ i: Int) -> (Int, Int, Int) {
            let shallowest = results[i].map(\.path.tokens.count).min() ?? 0
            return (-shallowest, results[i].count, i)
        }
        return results[candidates.min { rank($0) < rank($1) }!]
    }

    /// Names the condition of an `if` in what its `then` reports: `missing required key "alert" (required
    /// when "event" is "start")`.
    private func explain(_ failures: [SchemaFailure], by keys: [String], of instance: JSONValue) -> [SchemaFailure] {
        guard !keys.isEmpty, let members = instance.objectValue, keys.allSatisfy({ members[$0] != nil }) else {
            return failures
        }
        let condition = keys.map { "\(quoted($0)) is \(SchemaFailure.render(members[$0]!))" }
            .joined(separator: " and ")
        return failures.map { failure in
            var failure = failure
            switch failure.kind {
            case .missing: failure.message += " (required when \(condition))"
            case .forbidden: failure.message += " when \(condition)"
            default: break
            }
            return failure
        }
    }
}
