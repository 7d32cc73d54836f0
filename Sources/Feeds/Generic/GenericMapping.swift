import LiveRelayCore

/// How to read entities and their fields out of any JSON feed body, with JSON Pointers (RFC 6901).
///
/// ```json
/// {"entities": "/events", "id": "/id",
///  "fields": {"home.score": {"pointer": "/competitions/0/competitors/0/score", "type": "int"}}}
/// ```
public struct GenericMapping: Sendable, Hashable, Codable {
    /// Where the entities are: an array, or an object whose members are the entities. Empty (`""`, the
    /// body itself) unless written; not used when ``entity`` is.
    public var entities: String
    /// Where the body's one entity is, for a body that is one entity with no list around it (a single quote,
    /// one match): `""` for the whole body.
    public var entity: String?
    /// Where each entity's id is, inside the entity. Absent: the member name (object) or the index (array).
    public var id: String?
    /// The id of the one entity (with ``entity``) when the body does not say it.
    public var entityID: String?
    /// The facts to read, by dotted name.
    public var fields: [String: FieldMapping]

    public init(
        entities: String? = nil, entity: String? = nil, id: String? = nil, entityID: String? = nil,
        fields: [String: FieldMapping]
    ) {
        self.entities = entities ?? ""
        hasEntities = entities != nil
        self.entity = entity
        self.id = id
        self.entityID = entityID
        self.fields = fields
    }

    /// True when `entities` was written (a config may give `entities` or `entity`, not both).
    public var hasEntities = true

    private enum CodingKeys: String, CodingKey {
        case entities, entity, id, fields
        case entityID = "entity-id"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let written = try c.decodeIfPresent(String.self, forKey: .entities)
        entities = written ?? ""
        hasEntities = written != nil
        entity = try c.decodeIfPresent(String.self, forKey: .entity)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        entityID = try c.decodeIfPresent(String.self, forKey: .entityID)
        fields = try c.decode([String: FieldMapping].self, forKey: .fields)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if hasEntities || entity == nil { try c.encode(entities, forKey: .entities) }
        try c.encodeIfPresent(entity, forKey: .entity)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(entityID, forKey: .entityID)
        try c.encode(fields, forKey: .fields)
    }

    /// The facts the mapping declares, sorted by name: each with its type, where it is read, and, for an
    /// optional field, that it is absent when the value is missing or `null`.
    public var factCatalogue: [FactDescription] {
        fields.keys.sorted().map { name in
            let field = fields[name]!
            return FactDescription(
                name, field.type, "read from \(field.pointer.isEmpty ? "the entity itself" : field.pointer)",
                condition: field.optional
                    ? "when \(field.pointer.isEmpty ? "it" : field.pointer) is present and not null" : nil)
        }
    }
}

/// One fact: where it is in the entity and what type it has.
public struct FieldMapping: Sendable, Hashable, Codable {
    public var pointer: String
    public var type: FieldType
    /// When true, a missing or null value leaves the fact out; when false (the default), it is a feed error.
    public var optional: Bool

    public init(pointer: String, type: FieldType, optional: Bool = false) {
        self.pointer = pointer
        self.type = type
        self.optional = optional
    }

    private enum CodingKeys: String, CodingKey {
        case pointer, type, optional
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pointer = try c.decode(String.self, forKey: .pointer)
        type = try c.decode(FieldType.self, forKey: .type)
        optional = try c.decodeIfPresent(Bool.self, forKey: .optional) ?? false
    }
}

/// The type a fact is converted to. Feeds send scores as strings and prices as strings or numbers; facts
/// always have one type per field.
public enum FieldType: String, Sendable, Hashable, Codable, CaseIterable {
    /// An integer; numeric strings such as `"2"` are accepted.
    case int
    /// An exact decimal (prices, volumes); numeric strings and numbers are accepted, never rounded via Double.
    case decimal
    /// A string; numbers are accepted and written as they were.
    case string
    /// A boolean; `"true"` and `"false"` are accepted.
    case bool
    /// A moment, as UNIX seconds; ISO 8601 strings, UNIX seconds and UNIX milliseconds are accepted.
    case time
}
