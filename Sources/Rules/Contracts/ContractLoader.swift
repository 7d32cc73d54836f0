public import LiveRelayCore

/// Reads a content-state contract file; every problem is a `file:line:column` diagnostic.
///
/// ```json
/// {"attributes-type": "MatchAttributes", "date-encoding": "seconds-since-2001",
///  "content-state": {"type": "object", "required": ["homeScore"], "additionalProperties": false,
///                    "properties": {"homeScore": {"type": "integer"}, "endsAt": {"type": "number", "x-date": true}}},
///  "attributes": {"type": "object", "properties": {"homeTeam": {"type": "string"}}}}
/// ```
public enum ContractLoader {
    static let keys = [
        "$schema", "$comment", "description", "attributes-type", "date-encoding", "content-state", "attributes",
    ]

    /// Loads the contract at `path` (as the user named it; read from `resolvedPath`).
    public static func load(path: String, resolvedPath: String) -> Result<ContentContract, Diagnostics> {
        let (contract, problems) = read(path: path, resolvedPath: resolvedPath)
        guard problems.isEmpty, let contract else { return .failure(Diagnostics(problems)) }
        return .success(contract)
    }

    /// Reads the contract at `path` with every problem it has, and what can be made of it despite them: a
    /// schema keyword that cannot be compiled is left out (so `check` still holds the rules to the rest of
    /// the contract: its required fields, its other types); `nil` only when the file is not a contract at
    /// all (not JSON, not an object, no content-state).
    public static func read(path: String, resolvedPath: String) -> (contract: ContentContract?, problems: [Diagnostic])
    {
        let document: JSONValue
        let map: SourceMap
        do {
            (document, map) = try SourceDocument.read(path: resolvedPath, what: "contract file")
        } catch {
            return (nil, error.items.map { Diagnostic(file: path, location: $0.location, message: $0.message) })
        }
        var problems: [Diagnostic] = []
        func problem(_ pointer: String, atKey: Bool = false, _ message: String) {
            problems.append(Diagnostic(file: path, location: map.location(pointer, preferKey: atKey), message: message))
        }
        guard case .object(let members) = document else {
            return (
                nil,
                [
                    Diagnostic(
                        file: path, location: map.location("", preferKey: false), message: "a contract is a JSON object"
                    )
                ]
            )
        }
        for key in members.keys.sorted() where !keys.contains(key) {
            var message = "unknown key \"\(key)\""
            if let guess = Suggestion.closest(to: key, among: keys) { message += " (did you mean \"\(guess)\"?)" }
            problem("/" + JSONPointer.escape(key), atKey: true, message)
        }
        var attributesType = ""
        switch members["attributes-type"] {
        case .string(let name)? where !name.isEmpty: attributesType = name
        case nil: problem("", "missing \"attributes-type\": the Swift ActivityAttributes type this contract describes")
        default: problem("/attributes-type", "\"attributes-type\" must be a non-empty string")
        }
        var encoding = ContentContract.DateEncoding.secondsSince2001
        if let written = members["date-encoding"] {
            if let name = written.stringValue, let known = ContentContract.DateEncoding(rawValue: name) {
                encoding = known
            } else {
                let names = ContentContract.DateEncoding.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                problem("/date-encoding", "\"date-encoding\" must be one of \(names)")
            }
        }
        func part(_ key: String) -> ContentContract.Part? {
            guard var written = members[key] else { return nil }
            var schema: JSONSchema?
            // Each keyword that does not compile is said and left out, until the rest compiles.
            for _ in 0..<100 where schema == nil {
                do {
                    schema = try JSONSchema(written)
                } catch {
                    problem("/\(key)" + error.pointer, "\(key) schema: \(error.message)")
                    guard let pointer = try? JSONPointer(error.pointer), let rest = written.leavingOut(pointer) else {
                        return nil
                    }
                    written = rest
                }
            }
            guard let schema else { return nil }
            var dates: [[String]] = []
            collectDates(written, path: [], pointer: "/\(key)", into: &dates) { pointer, message in
                problem(pointer, message)
            }
            for path in dates {
                let pointer = "/\(key)/" + path.map { "properties/" + JSONPointer.escape($0) }.joined(separator: "/")
                let declared = declaredTypes(written.schemaMember(at: path) ?? .null)
                let wanted: Set<String> = encoding.isText ? ["string"] : ["number", "integer"]
                if let declared, declared.isDisjoint(with: wanted) {
                    problem(
                        pointer,
                        "\(path.joined(separator: ".")) is a date written as \(encoding.rawValue): its type must be \(encoding.isText ? "\"string\"" : "\"number\" or \"integer\""), not \(declared.sorted().map { "\"\($0)\"" }.joined(separator: ", "))"
                    )
                }
            }
            return ContentContract.Part(written: written, schema: schema, dates: dates)
        }
        let contentState = part("content-state")
        if members["content-state"] == nil {
            problem("", "missing \"content-state\": the JSON Schema of the app's ContentState")
        }
        let attributes = part("attributes")
        guard let contentState, !attributesType.isEmpty else { return (nil, problems) }
        return (
            ContentContract(
                attributesType: attributesType, file: path, dateEncoding: encoding, contentState: contentState,
                attributes: attributes), problems
        )
    }

    /// The `x-date` fields under an object schema's `properties`, nested objects included.
    private static func collectDates(
        _ schema: JSONValue, path: [String], pointer: String, into dates: inout [[String]],
        problem: (String, String) -> Void
    ) {
        guard let properties = schema["properties"]?.objectValue else { return }
        for (name, sub) in properties.sorted(by: { $0.key < $1.key }) {
            let here = pointer + "/properties/" + JSONPointer.escape(name)
            switch sub["x-date"] {
            case .bool(true)?: dates.append(path + [name])
            case nil, .bool(false)?: break
            default: problem(here + "/x-date", "\"x-date\" must be true or false")
            }
            collectDates(sub, path: path + [name], pointer: here, into: &dates, problem: problem)
        }
    }

    /// The JSON types a schema's `type` (or `enum`/`const`) allows; `nil` when it does not say.
    static func declaredTypes(_ schema: JSONValue) -> Set<String>? {
        switch schema["type"] {
        case .string(let name)?: return [name]
        case .array(let names)?: return Set(names.compactMap(\.stringValue))
        default: break
        }
        if let values = schema["enum"]?.arrayValue { return Set(values.map { SchemaType.of($0).rawValue }) }
        if let value = schema["const"] { return [SchemaType.of(value).rawValue] }
        return nil
    }
}

extension JSONValue {
    /// The document without the schema keyword at `pointer`: the member it names, or, for an item of an
    /// array (`/required/0`), the keyword holding the array. `nil` for the root.
    func leavingOut(_ pointer: JSONPointer) -> JSONValue? {
        var tokens = pointer.tokens
        guard !tokens.isEmpty else { return nil }
        // Up to the keyword: the last token that names an object member.
        while tokens.count > 1, case .array? = JSONPointer(tokens: Array(tokens.dropLast())).resolve(in: self) {
            tokens.removeLast()
        }
        guard tokens.count > 0 else { return nil }
        return removing(tokens[...])
    }

    private func removing(_ tokens: ArraySlice<String>) -> JSONValue {
        guard let first = tokens.first else { return self }
        switch self {
        case .object(var members):
            if tokens.count == 1 {
                members[first] = nil
            } else if let inner = members[first] {
                members[first] = inner.removing(tokens.dropFirst())
            }
            return .object(members)
        case .array(var items):
            if let i = Int(first), items.indices.contains(i), tokens.count > 1 {
                items[i] = items[i].removing(tokens.dropFirst())
            }
            return .array(items)
        default:
            return self
        }
    }

    /// The schema of the member at `path`, following `properties`.
    func schemaMember(at path: [String]) -> JSONValue? {
        var schema: JSONValue? = self
        for name in path { schema = schema?["properties"]?[name] }
        return schema
    }
}
