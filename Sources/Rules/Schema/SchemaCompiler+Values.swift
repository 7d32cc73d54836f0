import Foundation
import LiveRelayCore

/// Readers for keyword values: each checks the value's shape and names the keyword when it is wrong.
extension SchemaCompiler {
    private func name(_ here: JSONPointer) -> String { "\"\(here.tokens.last ?? "")\"" }

    func string(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> String {
        guard let s = value.stringValue else { throw error(here, "\(name(here)) must be a string") }
        return s
    }

    func object(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> [String: JSONValue] {
        guard let o = value.objectValue else { throw error(here, "\(name(here)) must be an object") }
        return o
    }

    func array(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> [JSONValue] {
        guard let a = value.arrayValue else { throw error(here, "\(name(here)) must be an array") }
        return a
    }

    /// A non-negative integer, as `minItems`, `maxLength` and friends take.
    func count(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> Int {
        guard SchemaType.integer.accepts(value), let d = value.doubleValue, d >= 0, d < Double(Int.max) else {
            throw error(here, "\(name(here)) must be a non-negative integer")
        }
        return Int(d)
    }

    func bound(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> Bound {
        guard let d = value.doubleValue, d.isFinite else { throw error(here, "\(name(here)) must be a number") }
        return Bound(value: d, text: value.jsonString())
    }

    func uniqueStrings(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for (i, element) in try array(value, here).enumerated() {
            guard let s = element.stringValue else {
                throw error(here.appending(String(i)), "\(name(here)) must list strings")
            }
            guard seen.insert(s).inserted else {
                throw error(here.appending(String(i)), "\(name(here)) lists \"\(s)\" twice")
            }
            out.append(s)
        }
        return out
    }

    func types(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> [SchemaType] {
        func one(_ value: JSONValue, _ at: JSONPointer) throws(JSONSchemaError) -> SchemaType {
            guard let text = value.stringValue else { throw error(at, "a type must be a string") }
            guard let type = SchemaType(rawValue: text) else {
                var message = "unknown type \"\(text)\""
                if let guess = Suggestion.closest(to: text, among: SchemaType.allCases.map(\.rawValue)) {
                    message += " (did you mean \"\(guess)\"?)"
                }
                throw error(at, message)
            }
            return type
        }
        if value.stringValue != nil { return [try one(value, here)] }
        guard let list = value.arrayValue, !list.isEmpty else {
            throw error(here, "\"type\" must be a type name or a non-empty array of type names")
        }
        var out: [SchemaType] = []
        for (i, element) in list.enumerated() {
            let type = try one(element, here.appending(String(i)))
            guard !out.contains(type) else {
                throw error(here.appending(String(i)), "\"type\" lists \"\(type)\" twice")
            }
            out.append(type)
        }
        return out
    }

    func regex(_ source: String, _ here: JSONPointer) throws(JSONSchemaError) -> Pattern {
        do {
            return try Pattern(source)
        } catch {
            throw self.error(here, "invalid regular expression \"\(source)\"")
        }
    }

    /// A non-empty array of schemas (`allOf`, `anyOf`, `oneOf`, `prefixItems`).
    mutating func schemas(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> [Int] {
        let list = try array(value, here)
        guard !list.isEmpty else { throw error(here, "\(name(here)) must list at least one schema") }
        var out: [Int] = []
        for i in list.indices { out.append(try compile(at: here.appending(String(i)))) }
        return out
    }

    /// Rejects `$ref`/applicator cycles that never step into the instance: validating them would never end.
    func checkForEndlessCycles() throws(JSONSchemaError) {
        var state = [UInt8](repeating: 0, count: nodes.count)  // 0 unvisited, 1 on the path, 2 done
        var path: [Int] = []
        func visit(_ i: Int) throws(JSONSchemaError) {
            if state[i] == 2 { return }
            if state[i] == 1 {
                let cycle =
                    path[path.firstIndex(of: i)!...].map { "#" + nodes[$0].location } + ["#" + nodes[i].location]
                throw JSONSchemaError(
                    pointer: nodes[i].location,
                    message: "schema refers to itself without descending into the instance: "
                        + cycle.joined(separator: " → "))
            }
            state[i] = 1
            path.append(i)
            let n = nodes[i]
            for next in [n.ref, n.not, n.ifNode, n.thenNode, n.elseNode].compactMap({ $0 }) + n.allOf + n.anyOf
                + n.oneOf
            {
                try visit(next)
            }
            path.removeLast()
            state[i] = 2
        }
        for i in nodes.indices { try visit(i) }
    }
}
