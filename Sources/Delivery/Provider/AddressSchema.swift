/// How a provider's own addresses are registered through the token API (`PUT /v1/devices/{device}/providers/{registry}`
/// and `PUT /v1/activities/{activity}/providers/{registry}`): the body's fields and the check of each. A
/// provider that addresses devices by more than their APNs tokens declares one (see
/// ``ProviderSettings/addresses``). The values are secrets of a sort (whoever holds an FCM registration token
/// or a Getui `cid` with the app's credentials can push to the install): errors name the field and say what
/// was expected, never what was sent.
public struct AddressSchema: Sendable {
    /// The registry the addresses are kept in, and the `{registry}` of the routes (the provider's kind).
    public var registry: String
    /// The fields of a device's address, as the body names them.
    public var deviceFields: [String]
    /// The field(s) a refusal of a dropped address names (`hwid or push-token`).
    public var addressField: String
    /// The field of the activity's id at the provider; `nil` when it keeps none (FCM reaches an activity
    /// through its APNs update token).
    public var activityField: String?
    /// The device's address (and user) from the body's fields, each checked.
    public var deviceAddress: @Sendable (_ fields: [String: String]) throws(AddressError) -> DeviceAddress

    /// A device's address at a provider: the install's id there, and a user id where the provider has one.
    public struct DeviceAddress: Sendable, Hashable {
        /// The install's id (FCM registration token, Getui `cid`, Pushwoosh push token or HWID).
        public var address: String?
        /// A user id (Pushwoosh).
        public var user: String?

        /// An address.
        public init(address: String?, user: String? = nil) {
            self.address = address
            self.user = user
        }
    }

    /// A schema.
    public init(
        registry: String, deviceFields: [String], addressField: String, activityField: String?,
        deviceAddress: @escaping @Sendable ([String: String]) throws(AddressError) -> DeviceAddress
    ) {
        self.registry = registry
        self.deviceFields = deviceFields
        self.addressField = addressField
        self.activityField = activityField
        self.deviceAddress = deviceAddress
    }

    /// An activity's id at a provider (Pushwoosh `live_activity_id`, Getui `laId`): 1 to 128 letters, digits,
    /// `.`, `_`, `:` or `-`.
    public func activityID(_ raw: String) throws(AddressError) -> String {
        let field = activityField ?? "id"
        guard (1...128).contains(raw.utf8.count), raw.utf8.allSatisfy({ AddressCheck.isIdentifier($0) }) else {
            throw AddressError(
                "\(field): expected 1 to 128 letters, digits, '.', '_', ':' or '-'; got \(raw.count) characters")
        }
        return raw
    }
}

/// A refused address: says which field and what was expected.
public struct AddressError: Error, Sendable, CustomStringConvertible {
    /// `cid: expected the 32 hex digits of a Getui cid; got 5 characters`.
    public var message: String

    /// An error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Character classes the address checks share.
public enum AddressCheck {
    /// ASCII letters and digits.
    public static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    /// Letters, digits, `.`, `_`, `:` and `-`.
    public static func isIdentifier(_ c: UInt8) -> Bool { isAlphanumeric(c) || "._:-".utf8.contains(c) }

    /// Hex digits of either case.
    public static func isHexDigit(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }

    /// A hex token as APNs gives them: lower-case hex, an even number of digits between 64 and 512.
    public static func token(_ raw: String, field: String) throws(AddressError) -> String {
        guard raw.count % 2 == 0, (64...512).contains(raw.count) else {
            throw AddressError("\(field): expected 64 to 512 hex digits, an even number; got \(raw.count) characters")
        }
        guard raw.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw AddressError("\(field): expected lower-case hex digits only")
        }
        return raw
    }
}
