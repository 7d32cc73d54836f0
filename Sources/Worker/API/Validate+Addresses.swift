import Delivery
import HTTPTypes
import LiveRelayCore
import Store

/// Checks of provider addresses, by the schema each provider declares (``AddressSchema``). The values are
/// secrets of a sort: errors name the field and say what was expected, never what was sent.
extension Validate {
    /// The schema of an address route's `{provider}`: a provider of this build that keeps addresses (404 for
    /// anything else).
    static func addressProvider(_ raw: String?) throws -> AddressSchema {
        let schemas = ProviderCatalog.addressSchemas
        guard let schema = schemas.first(where: { $0.registry == raw }) else {
            throw APIError(
                .notFound,
                "provider: \"\((raw ?? "").prefix(64))\" has no addresses: expected "
                    + list(schemas.map(\.registry)) + " (APNs tokens go to /push-to-start/ and /tokens/)")
        }
        return schema
    }

    /// The schema of an activity address route's `{provider}`: a provider that keeps activity ids.
    static func activityAddressProvider(_ raw: String?) throws -> AddressSchema {
        let schema = try addressProvider(raw)
        guard schema.activityField != nil else {
            throw APIError(
                .notFound,
                "provider: \(schema.registry) keeps no activity id: register the activity's Live Activity token with "
                    + "PUT /v1/activities/{activity}/tokens/{device}")
        }
        return schema
    }

    /// The body's fields as strings, refused unless it is an object whose keys are all among `allowed` and
    /// whose values are strings.
    static func fields(of body: JSONValue, _ allowed: [String], _ schema: AddressSchema) throws -> [String: String] {
        guard case .object(let object) = body else {
            throw APIError(.badRequest, "body: expected an object with \(allowed.joined(separator: ", "))")
        }
        var fields: [String: String] = [:]
        for key in object.keys.sorted() {
            guard allowed.contains(key) else {
                throw APIError(
                    .badRequest,
                    "\(key.prefix(64)): not a field of \(schema.registry) addresses (expected "
                        + "\(allowed.joined(separator: ", ")))")
            }
            guard case .string(let value)? = object[key] else {
                throw APIError(.badRequest, "\(key): expected a string, found \(object[key]?.typeName ?? "nothing")")
            }
            fields[key] = value
        }
        return fields
    }

    /// A device's address at a provider, each part checked by its schema.
    static func deviceAddress(_ fields: [String: String], device: String, schema: AddressSchema) throws
        -> RegisteredAddress
    {
        do throws(AddressError) {
            let address = try schema.deviceAddress(fields)
            return RegisteredAddress(
                device: device, provider: schema.registry, address: address.address, user: address.user)
        } catch {
            throw APIError(.badRequest, error.message)
        }
    }

    /// `a, b or c`.
    private static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
