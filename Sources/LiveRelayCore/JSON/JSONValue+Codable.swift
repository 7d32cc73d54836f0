public import Foundation

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int.self) {
            self = .int(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .int(let i): try container.encode(i)
        case .double(let d):
            if d.isFinite { try container.encode(d) } else { try container.encodeNil() }
        case .decimal(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue {
    /// Canonical compact JSON text: object keys sorted, integral doubles written as integers, exact
    /// decimals written as they are. Used wherever output must be stable (golden files, console output).
    public func jsonString(sortedKeys: Bool = true) -> String {
        var out = JSONBytes()
        out.write(self, sortedKeys: sortedKeys)
        return out.string
    }

    /// Canonical JSON as UTF-8 bytes.
    public func jsonData(sortedKeys: Bool = true) -> Data {
        var out = JSONBytes()
        out.write(self, sortedKeys: sortedKeys)
        return out.data
    }

    /// Formats a double the way JavaScript prints it for integral values (`2`, not `2.0`).
    static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return String(d)
    }
}

/// A compact JSON writer onto a byte buffer: the canonical form of ``JSONValue/jsonString(sortedKeys:)``,
/// also for callers that write fixed keys around values (a push payload) without building a tree first.
public struct JSONBytes: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The bytes as `Data`.
    public var data: Data { Data(bytes) }
    /// The bytes as text.
    public var string: String { String(decoding: bytes, as: UTF8.self) }
    /// How many bytes were written.
    public var count: Int { bytes.count }

    /// Writes text that needs no escaping (punctuation, a key known to be plain).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// `"key":`, for keys known to need no escaping.
    public mutating func key(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func int(_ i: Int) {
        if i >= 0, i < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(i))
        } else {
            bytes.append(contentsOf: String(i).utf8)
        }
    }

    public mutating func double(_ d: Double) { bytes.append(contentsOf: JSONValue.format(d).utf8) }

    /// An exact decimal, as Foundation's `description` writes it (the text stored facts and pushes have always
    /// carried): digits, a point where the exponent puts it, no exponent notation. A mantissa of up to 64 bits
    /// (every price a feed gives) is written here directly (``DecimalParts``); Foundation's general loop of
    /// divisions by ten cost a crossing poll 8 % of its time. Anything else goes through `description`.
    public mutating func decimal(_ d: Decimal) {
        guard let parts = DecimalParts(d) else {
            bytes.append(contentsOf: d.description.utf8)
            return
        }
        // The mantissa's digits, least significant first.
        var mantissa = parts.mantissa
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(mantissa % 10))
            mantissa /= 10
        } while mantissa > 0
        if parts.negative { bytes.append(UInt8(ascii: "-")) }
        if parts.exponent >= 0 {
            bytes.append(contentsOf: digits.reversed())
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: parts.exponent))
            return
        }
        let fraction = -parts.exponent
        if digits.count > fraction {
            bytes.append(contentsOf: digits[fraction...].reversed())
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: digits[..<fraction].reversed())
        } else {
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: fraction - digits.count))
            bytes.append(contentsOf: digits.reversed())
        }
    }

    /// A JSON string: quotes, the two mandatory escapes, the short escapes and `\u00XX` for other control
    /// characters; everything else (including non-ASCII) as its UTF-8 bytes.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(b)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A whole value.
    public mutating func write(_ value: JSONValue, sortedKeys: Bool = true) {
        switch value {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .decimal(let d): decimal(d)
        case .string(let s): string(s)
        case .array(let a):
            byte(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { byte(UInt8(ascii: ",")) }
                write(v, sortedKeys: sortedKeys)
            }
            byte(UInt8(ascii: "]"))
        case .object(let o):
            byte(UInt8(ascii: "{"))
            if sortedKeys {
                for (i, entry) in o.sorted(by: { $0.key < $1.key }).enumerated() {
                    if i > 0 { byte(UInt8(ascii: ",")) }
                    member(entry.key, entry.value, sortedKeys: true)
                }
            } else {
                for (i, entry) in o.enumerated() {
                    if i > 0 { byte(UInt8(ascii: ",")) }
                    member(entry.key, entry.value, sortedKeys: false)
                }
            }
            byte(UInt8(ascii: "}"))
        }
    }

    private mutating func member(_ key: String, _ value: JSONValue, sortedKeys: Bool) {
        string(key)
        byte(UInt8(ascii: ":"))
        write(value, sortedKeys: sortedKeys)
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonString() }
}
