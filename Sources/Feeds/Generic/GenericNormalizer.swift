public import Foundation
public import LiveRelayCore

/// Turns a feed body into facts per entity with a `GenericMapping`. Pointers are parsed once, at creation.
public struct GenericNormalizer: FeedNormalizer {
    /// A mapping that cannot work (an invalid pointer), named by the config key it came from.
    public struct InvalidMapping: Error, Sendable, CustomStringConvertible {
        public var field: String
        public var message: String
        public var description: String { "\(field): \(message)" }
    }

    /// Why one body could not be normalised (the name this type had before presets shared it).
    public typealias Failure = NormalizationFailure

    private struct Field: Sendable {
        var name: String
        /// `name` split at its dots.
        var path: [String]
        var pointer: JSONPointer
        var type: FieldType
        var optional: Bool
    }

    public var factFields: [String: FactField]? {
        Dictionary(uniqueKeysWithValues: fields.map { ($0.name, FactField(type: $0.type, optional: $0.optional)) })
    }

    /// The mapping's declared facts (``GenericMapping/factCatalogue``).
    public let factCatalogue: [FactDescription]?

    private let entities: JSONPointer
    /// True when `entities` points at the body's one entity, not at a list of them.
    private let single: Bool
    /// The one entity's id when the body does not say it.
    private let fixedID: String?
    private let id: JSONPointer?
    private let fields: [Field]
    /// What the mapping reads: the entity list, and in each entity its id and fields. Nothing else of a
    /// body is built.
    private let selection: JSONSelection

    public init(_ mapping: GenericMapping) throws(InvalidMapping) {
        single = mapping.entity != nil
        fixedID = mapping.entityID
        switch (mapping.hasEntities, mapping.entity) {
        case (true, _?):
            throw InvalidMapping(
                field: "entity",
                message: "give \"entities\" (a list of entities) or \"entity\" (the body's one entity), not both")
        case (false, nil):
            throw InvalidMapping(
                field: "entities",
                message:
                    "say where the entities are: \"entities\" (a list, \"\" for the whole body) or \"entity\" (one entity)"
            )
        default:
            break
        }
        if single, mapping.id == nil, mapping.entityID == nil {
            throw InvalidMapping(
                field: "entity",
                message: "one entity needs its id: \"id\" (a pointer inside it) or \"entity-id\" (the id itself)")
        }
        if mapping.entityID != nil, !single {
            throw InvalidMapping(
                field: "entity-id",
                message: "\"entity-id\" names the one entity of \"entity\"; a list's ids come from \"id\"")
        }
        if let fixed = mapping.entityID, fixed.isEmpty {
            throw InvalidMapping(field: "entity-id", message: "an entity id is not empty")
        }
        do {
            entities = try JSONPointer(mapping.entity ?? mapping.entities)
        } catch {
            throw InvalidMapping(field: mapping.entity == nil ? "entities" : "entity", message: error.description)
        }
        do {
            id = try mapping.id.map { try JSONPointer($0) }
        } catch {
            throw InvalidMapping(field: "id", message: "\(error)")
        }
        var fields: [Field] = []
        for (name, field) in mapping.fields.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, !name.split(separator: ".", omittingEmptySubsequences: false).contains("") else {
                throw InvalidMapping(field: "fields/\(name)", message: "a fact name is dot-separated non-empty words")
            }
            do {
                fields.append(
                    Field(
                        name: name, path: name.split(separator: ".").map(String.init),
                        pointer: try JSONPointer(field.pointer), type: field.type, optional: field.optional)
                )
            } catch {
                throw InvalidMapping(field: "fields/\(name)/pointer", message: error.description)
            }
        }
        self.fields = fields
        factCatalogue = mapping.factCatalogue
        var selection = JSONSelection()
        let entity = entities.tokens.map(JSONSelection.Step.key) + (single ? [] : [.any])
        for pointer in [id].compactMap({ $0 }) + fields.map(\.pointer) {
            selection.include(entity + pointer.tokens.map(JSONSelection.Step.key))
        }
        if fields.isEmpty && id == nil { selection.include(entity) }
        self.selection = selection
    }

    /// Parses and normalises a body. Any problem fails the whole body: a half-read body must not look like
    /// facts that disappeared.
    public func normalize(_ body: Data) throws(Failure) -> [String: Facts] {
        try normalize(document: try BodyNode.parse(body, selecting: selection).value)
    }

    /// Normalises an already parsed document.
    public func normalize(document: JSONValue) throws(Failure) -> [String: Facts] {
        guard let container = entities.resolve(in: document) else {
            throw Failure(
                kind: .shape, message: "no entity\(single ? "" : " list") at \(GenericNormalizer.show(entities))")
        }
        let members: [(String, JSONValue)]
        switch container {
        case .object where single: members = [(fixedID ?? "", container)]
        case .array(let items) where !single: members = items.enumerated().map { (String($0.offset), $0.element) }
        case .object(let object) where !single: members = object.sorted { $0.key < $1.key }
        default:
            throw Failure(
                kind: .shape,
                message:
                    "\(GenericNormalizer.show(entities)) is \(container.typeName), expected \(single ? "an object (the entity)" : "an array or an object")"
            )
        }
        var out: [String: Facts] = [:]
        out.reserveCapacity(members.count)
        for (position, entity) in members {
            // Only for messages: built when one is needed.
            var location: String {
                "entity \(GenericNormalizer.show(single ? entities : entities.appending(position)))"
            }
            let entityID: String
            if let fixedID {
                entityID = fixedID
            } else if let id {
                guard let raw = id.resolve(in: entity) else {
                    throw Failure(kind: .shape, message: "\(location) has no id at \(GenericNormalizer.show(id))")
                }
                switch raw {
                case .string(let s) where !s.isEmpty: entityID = s
                case .int(let i): entityID = String(i)
                default:
                    throw Failure(
                        kind: .shape,
                        message:
                            "\(location): id at \(GenericNormalizer.show(id)) is \(raw.typeName), expected a non-empty string or an integer"
                    )
                }
            } else {
                entityID = position
            }
            guard out[entityID] == nil else {
                throw Failure(kind: .shape, message: "\(location): duplicate entity id \"\(entityID)\"")
            }
            var facts = Facts()
            for field in fields {
                let raw = field.pointer.resolve(in: entity)
                if raw == nil || raw == .null {
                    if field.optional { continue }
                    throw Failure(
                        kind: .shape,
                        message:
                            "entity \"\(entityID)\": field \(field.name) at \(GenericNormalizer.show(field.pointer)) is \(raw == nil ? "missing" : "null")"
                    )
                }
                guard let value = FieldConversion.convert(raw!, to: field.type) else {
                    throw Failure(
                        kind: .shape,
                        message:
                            "entity \"\(entityID)\": field \(field.name) at \(GenericNormalizer.show(field.pointer)) is \(FieldConversion.describe(raw!)), expected \(field.type.rawValue)"
                    )
                }
                facts.set(path: field.path, value)
            }
            out[entityID] = facts
        }
        return out
    }

    private static func show(_ pointer: JSONPointer) -> String {
        pointer.tokens.isEmpty ? "the document root" : pointer.description
    }
}
