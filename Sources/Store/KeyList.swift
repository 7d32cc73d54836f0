import LiveRelayCore

extension SQLiteStore {
    /// `keys` as one JSON array, for `IN (SELECT value FROM json_each(?))`: one cached statement whatever their
    /// number. A `?` per key made a statement to compile on every call (in chunks of 500), which a poll that
    /// starts 1,000 alerts paid in each of its reads of them.
    static func list(_ keys: [String]) -> String {
        JSONValue.array(keys.map(JSONValue.string)).jsonString()
    }
}
