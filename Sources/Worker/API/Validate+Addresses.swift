import Foundation
import LiveRelayCore
import Store

/// Checks of provider addresses. The values are secrets of a sort (whoever holds an FCM registration token
/// or a Getui `cid` with the app's credentials can push to the install): errors name the field and say what
/// was expected, never what was sent.
extension Validate {
    /// The provider of an address route: `fcm`, `pushwoosh` or `getui` (404 for anything else).
    static func addressProvider(_ raw: String?) throws -> AddressProvider {
        guard let provider = AddressProvider.all.first(where: { $0.name == raw }) else {
            throw APIError(
                .notFound,
                "provider: \"\((raw ?? "").prefix(64))\" has no addresses: expected fcm, pushwoosh or getui "
                    + "(APNs tokens go to /push-to-start/ and /tokens/)")
        }
        return provider
    }

    /// The provider of an activity address route: `pushwoosh` or `getui`; FCM reaches an activity through
    /// its APNs update token.
    static func activityAddressProvider(_ raw: String?) throws -> AddressProvider {
        let provider = try addressProvider(raw)
        guard !provider.activityFields.isEmpty else {
            throw APIError(
                .notFound,
                "provider: fcm keeps no activity id: register the activity's Live Activity token with "
                    + "PUT /v1/activities/{activity}/tokens/{device}")
        }
        return provider
    }

    /// The body, refused unless it is an object whose keys are all among `allowed`.
    static func fields(of body: JSONValue, _ allowed: [String], _ provider: AddressProvider) throws -> JSONValue {
        guard case .object(let object) = body else {
            throw APIError(.badRequest, "body: expected an object with \(allowed.joined(separator: ", "))")
        }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError(
                .badRequest,
                "\(unknown.prefix(64)): not a field of \(provider.name) addresses (expected "
                    + "\(allowed.joined(separator: ", ")))")
        }
        return body
    }

    /// A device's address at a provider, each part checked for that provider's format.
    static func deviceAddress(_ body: DeviceAddressBody, device: String, provider: AddressProvider) throws
        -> RegisteredAddress
    {
        switch provider {
        case .fcm:
            guard let token = body.token else {
                throw APIError(.badRequest, "token: required (the FCM registration token)")
            }
            return RegisteredAddress(device: device, provider: provider.name, address: try fcmToken(token))
        case .pushwoosh:
            if body.hwid != nil, body.pushToken != nil {
                throw APIError(.badRequest, "hwid, push-token: give one of them, not both")
            }
            guard body.hwid != nil || body.pushToken != nil || body.user != nil else {
                throw APIError(.badRequest, "hwid, push-token or user: required (give at least one)")
            }
            let address = try body.hwid.map(hwid) ?? body.pushToken.map { try token($0, field: "push-token") }
            return RegisteredAddress(
                device: device, provider: provider.name, address: address, user: try body.user.map(pushwooshUser))
        default:
            guard let cid = body.cid else { throw APIError(.badRequest, "cid: required (the Getui client id)") }
            return RegisteredAddress(device: device, provider: provider.name, address: try getuiCID(cid))
        }
    }

    /// An FCM registration token: letters, digits, `-`, `_` and `:` (Firebase's alphabet), 32 to 1024 of them.
    static func fcmToken(_ raw: String) throws -> String {
        guard (32...1024).contains(raw.utf8.count),
            raw.utf8.allSatisfy({ isAlphanumeric($0) || "-_:".utf8.contains($0) })
        else {
            throw APIError(
                .badRequest,
                "token: expected an FCM registration token (32 to 1024 letters, digits, '-', '_' or ':'); "
                    + "got \(raw.count) characters")
        }
        return raw
    }

    /// A Pushwoosh HWID: 1 to 128 letters, digits, `.`, `_`, `:` or `-` (iOS uses the vendor UUID).
    static func hwid(_ raw: String) throws -> String {
        guard (1...128).contains(raw.utf8.count),
            raw.utf8.allSatisfy({ isAlphanumeric($0) || "._:-".utf8.contains($0) })
        else {
            throw APIError(
                .badRequest,
                "hwid: expected 1 to 128 letters, digits, '.', '_', ':' or '-'; got \(raw.count) characters")
        }
        return raw
    }

    /// A Pushwoosh user id (set with `/registerUser`): 1 to 256 characters, no control characters.
    static func pushwooshUser(_ raw: String) throws -> String {
        guard (1...256).contains(raw.count),
            !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError(
                .badRequest, "user: expected 1 to 256 characters without control characters; got \(raw.count)")
        }
        return raw
    }

    /// A Getui `cid`: the 32 hex digits Getui gives each install.
    static func getuiCID(_ raw: String) throws -> String {
        guard raw.utf8.count == 32, raw.utf8.allSatisfy(isHexDigit) else {
            throw APIError(.badRequest, "cid: expected the 32 hex digits of a Getui cid; got \(raw.count) characters")
        }
        return raw
    }

    /// A provider's id of an activity (Pushwoosh `live_activity_id`, Getui `laId`).
    static func activityAddress(_ raw: String, field: String) throws -> String {
        guard (1...128).contains(raw.utf8.count),
            raw.utf8.allSatisfy({ isAlphanumeric($0) || "._:-".utf8.contains($0) })
        else {
            throw APIError(
                .badRequest,
                "\(field): expected 1 to 128 letters, digits, '.', '_', ':' or '-'; got \(raw.count) characters")
        }
        return raw
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }
}
