extension JSONValue {
    /// Applies a JSON merge patch (RFC 7386): objects merge member by member, `null` removes a member, any
    /// other value replaces. Used to fold a rule's partial content-state into the activity's full state.
    public func applyingMergePatch(_ patch: JSONValue) -> JSONValue {
        guard case .object(let patchMembers) = patch else { return patch }
        var result = objectValue ?? [:]
        for (key, value) in patchMembers {
            if value == .null {
                result.removeValue(forKey: key)
            } else {
                result[key] = (result[key] ?? .emptyObject).applyingMergePatch(value)
            }
        }
        return .object(result)
    }
}
