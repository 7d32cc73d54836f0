import LiveRelayCore
import Rules
import Testing

@Suite struct JSONSchemaCompileTests {
    @Test(arguments: [
        (#"{"format": "date"}"#, #"#/format: unsupported keyword "format": this validator does not implement it"#),
        (#"{"proprties": {}}"#, #"#/proprties: unknown keyword "proprties" (did you mean "properties"?)"#),
        (#"{"definitions": {}}"#, #"#/definitions: "definitions" is from an older draft; draft 2020-12 uses "$defs""#),
        (
            #"{"properties": {"a": {"type": "strng"}}}"#,
            #"#/properties/a/type: unknown type "strng" (did you mean "string"?)"#
        ),
        (#"{"type": 5}"#, #"#/type: "type" must be a type name or a non-empty array of type names"#),
        (
            #"{"$ref": "other.json#/a"}"#,
            ##"#/$ref: only references within this schema ("#" or "#/$defs/…") are supported, not "other.json#/a""##
        ),
        (##"{"$ref": "#/$defs/missing"}"##, ##"#/$ref: "$ref" target "#/$defs/missing" does not exist"##),
        (
            ##"{"$ref": "#anchor"}"##,
            ##"#/$ref: "#anchor" is not a JSON Pointer reference (anchors are not supported)"##
        ),
        (
            ##"{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}}"##,
            "#/$defs/a: schema refers to itself without descending into the instance: "
                + "#/$defs/a → #/$defs/b → #/$defs/b/allOf/0 → #/$defs/a"
        ),
        (#"{"then": {}}"#, #"#/then: "then" has no effect without "if""#),
        (#"{"minItems": -1}"#, #"#/minItems: "minItems" must be a non-negative integer"#),
        (#"{"maxLength": 1.5}"#, #"#/maxLength: "maxLength" must be a non-negative integer"#),
        (#"{"pattern": "("}"#, #"#/pattern: invalid regular expression "(""#),
        (#"{"required": ["a", "a"]}"#, #"#/required/1: "required" lists "a" twice"#),
        (#"{"enum": []}"#, #"#/enum: "enum" must list at least one value"#),
        (#"{"anyOf": []}"#, #"#/anyOf: "anyOf" must list at least one schema"#),
        (
            #"{"$schema": "http://json-schema.org/draft-07/schema#"}"#,
            #"#/$schema: only draft 2020-12 is supported: "$schema" must be "https://json-schema.org/draft/2020-12/schema""#
        ),
        (
            #"{"items": {"$id": "x"}}"#,
            #"#/items/$id: "$id" is only supported at the root (it would change how "$ref" resolves)"#
        ),
        (#""x""#, "#: a schema must be an object or a boolean, not a string"),
        (#"{"items": [{}]}"#, "#/items: a schema must be an object or a boolean, not an array"),
    ])
    func rejects(schema: String, expected: String) throws {
        let value = try JSONParser.parse(schema)
        #expect(throws: JSONSchemaError.self) { try JSONSchema(value) }
        do {
            _ = try JSONSchema(value)
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func resolvesReferencesThroughTheRootID() throws {
        let schema = try JSONSchema(
            JSONParser.parse(
                #"{"$id": "https://x.dev/s.json", "$defs": {"n": {"type": "integer"}}, "items": {"$ref": "https://x.dev/s.json#/$defs/n"}}"#
            ))
        #expect(
            schema.validate(try JSONParser.parse(#"[1, "a"]"#)).map(\.message) == [
                "element 1 must be an integer, not a string"
            ])
    }
}
