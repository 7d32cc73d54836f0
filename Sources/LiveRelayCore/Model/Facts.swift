/// The normalised fields of one entity at one moment, as nested JSON objects.
///
/// A field named `home.score` is stored as `{"home": {"score": …}}`, so a rule reads it with
/// `{"var": "curr.home.score"}`.
public struct Facts: Sendable, Hashable, Codable {
    /// The fields, always a JSON object.
    public private(set) var value: JSONValue

    public init() { value = .emptyObject }

    public init(_ object: [String: JSONValue]) { value = .object(object) }

    public init(from decoder: any Decoder) throws {
        let v = try JSONValue(from: decoder)
        guard case .object = v else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "facts must be an object"))
        }
        value = v
    }

    public func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }

    /// Sets the field at a dotted path, creating intermediate objects.
    public mutating func set(_ path: String, _ newValue: JSONValue) {
        set(path: path.split(separator: ".").map(String.init), newValue)
    }

    /// Sets the field at a path already split at its dots (callers that set the same fields for every
    /// entity split once).
    public mutating func set(path: [String], _ newValue: JSONValue) {
        Facts.set(&value, path[...], newValue)
    }

    /// The field at a dotted path.
    public subscript(path: String) -> JSONValue? {
        var current: JSONValue? = value
        for part in path.split(separator: ".") { current = current?[String(part)] }
        return current
    }

    /// Mutates in place: each level's dictionary is taken out of its parent first, so it is never copied.
    private static func set(_ base: inout JSONValue, _ path: ArraySlice<String>, _ newValue: JSONValue) {
        guard let head = path.first else {
            base = newValue
            return
        }
        var object: [String: JSONValue] = [:]
        if case .object(let existing) = base { object = existing }
        base = .null
        var child = object.removeValue(forKey: head) ?? .emptyObject
        set(&child, path.dropFirst(), newValue)
        object[head] = child
        base = .object(object)
    }

    /// The dotted paths of every leaf whose value differs between `old` and `new` (added, removed or changed),
    /// sorted.
    public static func changedPaths(from old: Facts?, to new: Facts?) -> [String] {
        var out: [String] = []
        diff(old?.value, new?.value, prefix: "", into: &out)
        return out.sorted()
    }

    private static func diff(_ a: JSONValue?, _ b: JSONValue?, prefix: String, into out: inout [String]) {
        if case .object(let oa)? = a, case .object(let ob)? = b {
            for key in Set(oa.keys).union(ob.keys) {
                diff(oa[key], ob[key], prefix: prefix.isEmpty ? key : prefix + "." + key, into: &out)
            }
            return
        }
        if case .object(let o)? = a ?? b, a == nil || b == nil {
            for (key, v) in o {
                diff(
                    a == nil ? nil : v, b == nil ? nil : v, prefix: prefix.isEmpty ? key : prefix + "." + key,
                    into: &out)
            }
            return
        }
        if a != b, !prefix.isEmpty { out.append(prefix) }
    }
}
