public import Foundation

/// A value that writes its own JSON straight onto a ``JSONBytes``: the same bytes as
/// ``Swift/Encodable/compactJSON()`` (its `Codable` shape, keys sorted), without building a `JSONValue` tree
/// through `Codable` first. For what LiveRelay writes once per push or per activity on the hot path (a
/// push's outbox row, a throttle state); read back with ``JSONValueDecoder`` as before. A test holds each
/// conformance to the bytes `compactJSON()` writes.
public protocol JSONWritable {
    /// Writes this value.
    func writeJSON(to out: inout JSONBytes)
}

extension JSONWritable {
    /// This value as compact canonical JSON: the bytes `compactJSON()` would write. `capacity` holds a push
    /// with its alert and attributes, or a throttle state holding one, without growing.
    public func writtenJSON(capacity: Int = 1_024) -> Data {
        var out = JSONBytes(capacity: capacity)
        writeJSON(to: &out)
        return out.data
    }
}

extension JSONBytes {
    /// `,"key":` (a member after the first), for keys known to need no escaping.
    public mutating func next(_ name: StaticString) {
        byte(UInt8(ascii: ","))
        key(name)
    }

    /// A value that writes itself.
    public mutating func write(_ value: some JSONWritable) { value.writeJSON(to: &self) }

    /// An array of strings.
    public mutating func strings(_ values: [String]) {
        byte(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            string(v)
        }
        byte(UInt8(ascii: "]"))
    }

    /// An array of integers.
    public mutating func ints(_ values: [Int]) {
        byte(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            int(v)
        }
        byte(UInt8(ascii: "]"))
    }
}

extension EntityKey: JSONWritable {
    public func writeJSON(to out: inout JSONBytes) {
        out.raw("{")
        out.key("feed")
        out.string(feed)
        out.next("id")
        out.string(id)
        out.raw("}")
    }
}

extension LiveActivityAlert: JSONWritable {
    public func writeJSON(to out: inout JSONBytes) {
        // Sorted: body, loc-args, loc-key, sound, title, title-loc-args, title-loc-key; absent ones left out.
        var first = true
        func key(_ name: StaticString, _ out: inout JSONBytes) {
            if first { out.key(name) } else { out.next(name) }
            first = false
        }
        out.raw("{")
        if let body { key("body", &out); out.string(body) }
        if let locArgs { key("loc-args", &out); out.strings(locArgs) }
        if let locKey { key("loc-key", &out); out.string(locKey) }
        if let sound { key("sound", &out); out.string(sound) }
        if let title { key("title", &out); out.string(title) }
        if let titleLocArgs { key("title-loc-args", &out); out.strings(titleLocArgs) }
        if let titleLocKey { key("title-loc-key", &out); out.string(titleLocKey) }
        out.raw("}")
    }
}

extension LiveActivityPush: JSONWritable {
    public func writeJSON(to out: inout JSONBytes) {
        // Sorted as Swift orders the keys: activity, alert, attributes, attributesType, contentState, device,
        // dismissalDate, entity, event, inputPushChannel, inputPushToken, priority, relevanceScore, ruleIDs,
        // staleDate, timestamp. The optional ones are left out when absent.
        out.raw("{")
        out.key("activity")
        out.string(activity.rawValue)
        if let alert {
            out.next("alert")
            out.write(alert)
        }
        if let attributes {
            out.next("attributes")
            out.write(attributes)
        }
        out.next("attributesType")
        out.string(attributesType)
        out.next("contentState")
        out.write(contentState)
        if let device {
            out.next("device")
            out.string(device)
        }
        if let dismissalDate {
            out.next("dismissalDate")
            out.int(dismissalDate)
        }
        if let entity {
            out.next("entity")
            out.write(entity)
        }
        out.next("event")
        out.string(event.rawValue)
        if let inputPushChannel {
            out.next("inputPushChannel")
            out.string(inputPushChannel)
        }
        if let inputPushToken {
            out.next("inputPushToken")
            inputPushToken ? out.raw("true") : out.raw("false")
        }
        out.next("priority")
        out.int(priority.rawValue)
        if let relevanceScore {
            out.next("relevanceScore")
            out.double(relevanceScore.value)
        }
        out.next("ruleIDs")
        out.strings(ruleIDs)
        if let staleDate {
            out.next("staleDate")
            out.int(staleDate)
        }
        out.next("timestamp")
        out.int(timestamp)
        out.raw("}")
    }
}
