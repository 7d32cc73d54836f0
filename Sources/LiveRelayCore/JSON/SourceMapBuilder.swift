/// Collects value and key offsets by JSON Pointer while parsing.
struct SourceMapBuilder {
    var maxValues: Int = .max
    var path: [String] = []
    var values: [String: Int] = [:]
    var keys: [String: Int] = [:]

    var pointer: String { path.isEmpty ? "" : "/" + path.joined(separator: "/") }

    mutating func recordValue(at offset: Int) { values[pointer] = offset }

    mutating func push(_ token: String, keyOffset: Int?) {
        path.append(JSONPointer.escape(token))
        if let keyOffset { keys[pointer] = keyOffset }
    }

    mutating func pop() { path.removeLast() }
}
