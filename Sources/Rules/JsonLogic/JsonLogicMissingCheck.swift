import LiveRelayCore

/// The keys of a `missing` or `missing_some` call, with their paths split once.
struct JsonLogicMissingCheck: Sendable {
    /// The keys as written, which is what `missing` reports.
    let keys: [JSONValue]
    let paths: [JsonLogicPath]

    /// The keys json-logic-js takes from `missing`'s arguments: the first argument when it is an array
    /// (`{"missing":[["a","b"]]}`, or a `merge` result), else all of them.
    init(arguments: [JSONValue]) {
        if case .array(let list)? = arguments.first {
            keys = list
        } else {
            keys = arguments
        }
        paths = keys.map(JsonLogicPath.init)
    }

    /// The keys whose value is absent, `null` or `""`, in order.
    func missing(in data: JSONValue) -> [JSONValue] {
        var out: [JSONValue] = []
        for (key, path) in zip(keys, paths) {
            switch path.lookup(in: data) {
            case nil, .null?, .string("")?: out.append(key)
            default: break
            }
        }
        return out
    }

    /// `missing_some`: nothing when at least `needed` of the `optionCount` options are present, else what is
    /// missing. Without a count (options that are neither an array nor text), the missing keys.
    func missingSome(needed: JSONValue, optionCount: Int?, in data: JSONValue) -> [JSONValue] {
        let absent = missing(in: data)
        if let optionCount, let order = JSONValue.int(optionCount - absent.count).jsCompare(needed), order >= 0 {
            return []
        }
        return absent
    }
}
