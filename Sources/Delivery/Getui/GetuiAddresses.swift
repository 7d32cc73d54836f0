extension AddressSchema {
    /// Getui: the install's `cid` (`{"cid"}`), and the activity's `laId` (`{"la-id"}`).
    public static let getui = AddressSchema(
        registry: "getui", deviceFields: ["cid"], addressField: "cid", activityField: "la-id"
    ) { (fields: [String: String]) throws(AddressError) -> DeviceAddress in
        guard let cid = fields["cid"] else { throw AddressError("cid: required (the Getui client id)") }
        // The 32 hex digits Getui gives each install.
        guard cid.utf8.count == 32, cid.utf8.allSatisfy(AddressCheck.isHexDigit) else {
            throw AddressError("cid: expected the 32 hex digits of a Getui cid; got \(cid.count) characters")
        }
        return DeviceAddress(address: cid)
    }
}
