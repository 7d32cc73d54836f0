import Foundation
import LiveRelayCore

/// Turns a schema document into `SchemaNode`s, checking every keyword on the way.
struct SchemaCompiler {
    static let draft = "https://json-schema.org/draft/2020-12/schema"

    /// Keywords this validator implements; annotations are accepted and ignored.
    static let supportedKeywords: [String] = [
        "$schema", "$id", "$defs", "$ref", "$comment", "title", "description", "examples", "default",
        "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
        "propertyNames", "minProperties", "maxProperties", "items", "prefixItems", "minItems", "maxItems",
        "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
        "pattern", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
    ]

    /// Draft 2020-12 keywords that are deliberately not implemented.
    static let unsupportedKeywords: Set<String> = [
        "$anchor", "$dynamicAnchor", "$dynamicRef", "$vocabulary", "contains", "minContains", "maxContains",
        "dependentRequired", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties", "multipleOf",
        "format", "contentEncoding", "contentMediaType", "contentSchema", "deprecated", "readOnly", "writeOnly",
    ]

    /// Keywords of older drafts, with their 2020-12 replacement.
    static let olderKeywords: [String: String] = [
        "definitions": "$defs", "additionalItems": "items", "dependencies": "dependentRequired",
        "$recursiveRef": "$dynamicRef", "$recursiveAnchor": "$dynamicAnchor",
    ]

    let document: JSONValue
    private(set) var nodes: [SchemaNode] = []
    private var indexByLocation: [String: Int] = [:]
    private let rootID: String?

    init(document: JSONValue) {
        self.document = document
        self.rootID = document["$id"]?.stringValue
    }

    /// Compiles the schema at `pointer` (once) and returns its node index.
    mutating func compile(at pointer: JSONPointer) throws(JSONSchemaError) -> Int {
        let location = pointer.description
        if let index = indexByLocation[location] { return index }
        guard let value = pointer.resolve(in: document) else {
            throw JSONSchemaError(pointer: location, message: "there is no schema at this location")
        }
        let index = nodes.count
        nodes.append(SchemaNode(location: location))
        indexByLocation[location] = index
        nodes[index] = try compileNode(value, at: pointer)
        return index
    }

    private mutating func compileNode(_ value: JSONValue, at pointer: JSONPointer) throws(JSONSchemaError)
        -> SchemaNode
    {
        var node = SchemaNode(location: pointer.description)
        switch value {
        case .bool(let b):
            node.isFalse = !b
        case .object(let members):
            for key in members.keys.sorted() {
                try compileKeyword(key, members[key]!, into: &node, at: pointer.appending(key))
            }
            if node.ifNode == nil, let orphan = ["then", "else"].first(where: { members[$0] != nil }) {
                throw JSONSchemaError(
                    pointer: pointer.appending(orphan).description,
                    message: "\"\(orphan)\" has no effect without \"if\"")
            }
        default:
            throw JSONSchemaError(
                pointer: pointer.description,
                message: "a schema must be an object or a boolean, not \(SchemaFailure.typePhrase(of: value))")
        }
        return node
    }

    // One keyword; `here` is the keyword's own location.
    private mutating func compileKeyword(
        _ keyword: String, _ value: JSONValue, into node: inout SchemaNode, at here: JSONPointer
    ) throws(JSONSchemaError) {
        let isRoot = here.tokens.count == 1
        switch keyword {
        case "$schema":
            guard isRoot else { throw error(here, "\"$schema\" is only allowed at the root of the schema") }
            guard let uri = value.stringValue, uri == Self.draft || uri == Self.draft + "#" else {
                throw error(here, "only draft 2020-12 is supported: \"$schema\" must be \"\(Self.draft)\"")
            }
        case "$id":
            guard isRoot else {
                throw error(here, "\"$id\" is only supported at the root (it would change how \"$ref\" resolves)")
            }
            _ = try string(value, here)
        case "$defs":
            for name in try object(value, here).keys.sorted() { _ = try compile(at: here.appending(name)) }
        case "$ref": node.ref = try reference(value, here)
        case "$comment", "title", "description": _ = try string(value, here)
        case "examples": _ = try array(value, here)
        case "default": break
        case "type": node.types = try types(value, here)
        case "enum":
            let values = try array(value, here)
            guard !values.isEmpty else { throw error(here, "\"enum\" must list at least one value") }
            node.allowedValues = values
        case "const": node.constant = value
        case "properties":
            for name in try object(value, here).keys {
                node.properties[name] = try compile(at: here.appending(name))
            }
        case "required": node.required = try uniqueStrings(value, here)
        case "patternProperties":
            for source in try object(value, here).keys.sorted() {
                let pattern = try regex(source, here.appending(source))
                node.patternProperties.append((pattern, try compile(at: here.appending(source))))
            }
        case "additionalProperties": node.additionalProperties = try compile(at: here)
        case "propertyNames": node.propertyNames = try compile(at: here)
        case "minProperties": node.minProperties = try count(value, here)
        case "maxProperties": node.maxProperties = try count(value, here)
        case "items": node.items = try compile(at: here)
        case "prefixItems": node.prefixItems = try schemas(value, here)
        case "minItems": node.minItems = try count(value, here)
        case "maxItems": node.maxItems = try count(value, here)
        case "uniqueItems":
            guard case .bool(let b) = value else { throw error(here, "\"uniqueItems\" must be a boolean") }
            node.uniqueItems = b
        case "minimum": node.minimum = try bound(value, here)
        case "maximum": node.maximum = try bound(value, here)
        case "exclusiveMinimum": node.exclusiveMinimum = try bound(value, here)
        case "exclusiveMaximum": node.exclusiveMaximum = try bound(value, here)
        case "minLength": node.minLength = try count(value, here)
        case "maxLength": node.maxLength = try count(value, here)
        case "pattern": node.pattern = try regex(try string(value, here), here)
        case "allOf": node.allOf = try schemas(value, here)
        case "anyOf": node.anyOf = try schemas(value, here)
        case "oneOf": node.oneOf = try schemas(value, here)
        case "not": node.not = try compile(at: here)
        case "if":
            node.ifNode = try compile(at: here)
            node.conditionKeys = Self.conditionKeys(of: value)
        case "then": node.thenNode = try compile(at: here)
        case "else": node.elseNode = try compile(at: here)
        // Extension annotations (`x-date` in content-state contracts): read by their users, not validated.
        case _ where keyword.hasPrefix("x-"): break
        default: throw unknownKeyword(keyword, here)
        }
    }

    private func unknownKeyword(_ keyword: String, _ here: JSONPointer) -> JSONSchemaError {
        if Self.unsupportedKeywords.contains(keyword) {
            return error(here, "unsupported keyword \"\(keyword)\": this validator does not implement it")
        }
        if let replacement = Self.olderKeywords[keyword] {
            return error(here, "\"\(keyword)\" is from an older draft; draft 2020-12 uses \"\(replacement)\"")
        }
        var message = "unknown keyword \"\(keyword)\""
        if let guess = Suggestion.closest(to: keyword, among: Self.supportedKeywords) {
            message += " (did you mean \"\(guess)\"?)"
        }
        return error(here, message)
    }

    /// The member names tested by an `if` that only compares members with `const`/`enum`, else none.
    private static func conditionKeys(of condition: JSONValue) -> [String] {
        guard let members = condition.objectValue,
            Set(members.keys).isSubset(of: ["properties", "required", "type", "$comment", "description"]),
            let properties = members["properties"]?.objectValue, !properties.isEmpty
        else { return [] }
        let isValueTest = properties.values.allSatisfy { test in
            guard let keys = test.objectValue?.keys else { return false }
            return !keys.isEmpty && Set(keys).isSubset(of: ["const", "enum", "$comment", "description"])
        }
        return isValueTest ? properties.keys.sorted() : []
    }

    /// Resolves a `$ref` to a node, compiling its target if needed.
    private mutating func reference(_ value: JSONValue, _ here: JSONPointer) throws(JSONSchemaError) -> Int {
        let text = try string(value, here)
        var ref = Substring(text)
        if let rootID, !rootID.isEmpty, ref.hasPrefix(rootID) { ref = ref.dropFirst(rootID.count) }
        guard ref.hasPrefix("#") else {
            throw error(
                here, "only references within this schema (\"#\" or \"#/$defs/…\") are supported, not \"\(text)\"")
        }
        guard let fragment = String(ref.dropFirst()).removingPercentEncoding,
            let target = try? JSONPointer(fragment)
        else {
            throw error(here, "\"\(text)\" is not a JSON Pointer reference (anchors are not supported)")
        }
        guard target.resolve(in: document) != nil else {
            throw error(here, "\"$ref\" target \"\(text)\" does not exist")
        }
        return try compile(at: target)
    }

    func error(_ here: JSONPointer, _ message: String) -> JSONSchemaError {
        JSONSchemaError(pointer: here.description, message: message)
    }
}
