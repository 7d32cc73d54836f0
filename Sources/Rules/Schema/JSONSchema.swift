public import LiveRelayCore

/// A compiled JSON Schema (draft 2020-12 subset) that validates instances and explains every violation in
/// words a config or rule author understands.
///
/// Supported: `$schema`, `$id`, `$defs`, local `$ref`, `type`, `enum`, `const`, `properties`, `required`,
/// `additionalProperties`, `patternProperties`, `propertyNames`, `minProperties`, `maxProperties`, `items`,
/// `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`, `minLength`, `maxLength`, `pattern`, `allOf`, `anyOf`, `oneOf`, `not`,
/// `if`/`then`/`else`, boolean schemas, and the annotations `title`, `description`, `examples`, `default`
/// and `$comment`, and `x-`-prefixed extension annotations. Any other keyword is a compile error, so a
/// schema never silently means less than it says.
public struct JSONSchema: Sendable {
    let nodes: [SchemaNode]
    let root: Int

    /// Compiles `schema` once; throws on malformed or unsupported keywords, unresolvable `$ref`s and `$ref`
    /// cycles that would never terminate.
    public init(_ schema: JSONValue) throws(JSONSchemaError) {
        var compiler = SchemaCompiler(document: schema)
        root = try compiler.compile(at: .root)
        try compiler.checkForEndlessCycles()
        nodes = compiler.nodes
    }

    /// Every violation of the schema by `instance`, sorted by instance pointer (parents before members,
    /// elements by index); empty when `instance` is valid.
    public func validate(_ instance: JSONValue) -> [SchemaViolation] {
        let failures = SchemaEvaluator(nodes: nodes).evaluate(root, instance, at: InstancePath())
        let ordered = failures.enumerated().sorted { a, b in
            a.element.path.tokens == b.element.path.tokens
                ? a.offset < b.offset : a.element.path < b.element.path
        }
        var seen = Set<SchemaViolation>()
        return ordered.map(\.element.violation).filter { seen.insert($0).inserted }
    }
}
