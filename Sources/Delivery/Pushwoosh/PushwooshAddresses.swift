extension AddressSchema {
    /// Pushwoosh: the install's HWID or push token, and/or its user id (`{"hwid"}` or `{"push-token"}`,
    /// `{"user"}`), and the activity's `live_activity_id` (`{"live-activity-id"}`).
    public static let pushwoosh = AddressSchema(
        registry: "pushwoosh", deviceFields: ["hwid", "push-token", "user"], addressField: "hwid or push-token",
        activityField: "live-activity-id"
    ) { (fields: [String: String]) throws(AddressError) -> DeviceAddress in
        let (hwid, pushToken, user) = (fields["hwid"], fields["push-token"], fields["user"])
        if hwid != nil, pushToken != nil { throw AddressError("hwid, push-token: give one of them, not both") }
        guard hwid != nil || pushToken != nil || user != nil else {
            throw AddressError("hwid, push-token or user: required (give at least one)")
        }
        var address: String?
        if let hwid {
            // iOS uses the vendor UUID: 1 to 128 letters, digits, `.`, `_`, `:` or `-`.
            guard (1...128).contains(hwid.utf8.count), hwid.utf8.allSatisfy({ AddressCheck.isIdentifier($0) }) else {
                throw AddressError(
                    "hwid: expected 1 to 128 letters, digits, '.', '_', ':' or '-'; got \(hwid.count) characters")
            }
            address = hwid
        } else if let pushToken {
            address = try AddressCheck.token(pushToken, field: "push-token")
        }
        if let user {
            // Set with `/registerUser`: 1 to 256 characters, no control characters.
            guard (1...256).contains(user.count),
                !user.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw AddressError("user: expected 1 to 256 characters without control characters; got \(user.count)")
            }
        }
        return DeviceAddress(address: address, user: user)
    }
}
