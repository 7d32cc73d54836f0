extension AddressSchema {
    /// FCM: the install's registration token (`{"token"}`); activities are reached through their APNs tokens.
    public static let fcm = AddressSchema(
        registry: "fcm", deviceFields: ["token"], addressField: "token", activityField: nil
    ) { (fields: [String: String]) throws(AddressError) -> DeviceAddress in
        guard let token = fields["token"] else { throw AddressError("token: required (the FCM registration token)") }
        // Firebase's alphabet: letters, digits, `-`, `_` and `:`, 32 to 1024 of them.
        guard (32...1024).contains(token.utf8.count),
            token.utf8.allSatisfy({ AddressCheck.isAlphanumeric($0) || "-_:".utf8.contains($0) })
        else {
            throw AddressError(
                "token: expected an FCM registration token (32 to 1024 letters, digits, '-', '_' or ':'); "
                    + "got \(token.count) characters")
        }
        return DeviceAddress(address: token)
    }
}
