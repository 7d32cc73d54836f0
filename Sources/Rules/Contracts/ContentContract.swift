import Foundation
public import LiveRelayCore

/// What an app's `ActivityAttributes` type decodes: a JSON Schema for its `ContentState` and one for its
/// attributes, and how its dates are written. APNs answers 200 to a content-state the app cannot decode and
/// nothing changes on the phone; a contract makes LiveRelay refuse such a state instead, naming the field.
///
/// Rules write moments as UNIX seconds (`now`, `time` facts). A field marked `"x-date": true` is written the
/// way the contract's `date-encoding` says: ActivityKit decodes pushed states with a default `JSONDecoder`,
/// whose `Date` is seconds since 2001 (`seconds-since-2001`, the default), not since 1970.
public struct ContentContract: Sendable {
    /// How a `Date` field is written, named after `JSONDecoder.DateDecodingStrategy`.
    public enum DateEncoding: String, Sendable, CaseIterable {
        /// Swift's default (`deferredToDate`): seconds since 2001-01-01T00:00:00Z. ActivityKit decodes
        /// pushed content-states this way.
        case secondsSince2001 = "seconds-since-2001"
        /// `.secondsSince1970`: UNIX seconds.
        case secondsSince1970 = "seconds-since-1970"
        /// `.millisecondsSince1970`: UNIX milliseconds.
        case millisecondsSince1970 = "milliseconds-since-1970"
        /// `.iso8601`: `2026-07-02T18:00:00Z`.
        case iso8601

        /// Whether the encoded value is a string (else a number).
        var isText: Bool { self == .iso8601 }

        /// `seconds` (UNIX) as this encoding writes it.
        func encode(_ seconds: Int) -> JSONValue {
            switch self {
            case .secondsSince2001: .int(seconds - ContentContract.referenceDate)
            case .secondsSince1970: .int(seconds)
            case .millisecondsSince1970: .int(seconds * 1000)
            case .iso8601: .string(Self.iso8601Text(seconds))
            }
        }

        private static func iso8601Text(_ seconds: Int) -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(seconds)))
            func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
            return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
        }
    }

    /// One object the contract describes (the content-state, or the attributes).
    public struct Part: Sendable {
        /// The schema as written.
        public var written: JSONValue
        /// The schema, compiled.
        public var schema: JSONSchema
        /// The fields marked `"x-date": true`, as paths of member names.
        public var dates: [[String]]
    }

    /// The attributes type it describes (the Swift type's name, as rules write `attributes-type`).
    public var attributesType: String
    /// The contract file, as the config names it.
    public var file: String
    public var dateEncoding: DateEncoding
    public var contentState: Part
    /// `nil` when the contract says nothing of the attributes.
    public var attributes: Part?

    /// 2001-01-01T00:00:00Z in UNIX seconds: where Swift's default `Date` encoding counts from.
    public static let referenceDate = 978_307_200
    /// The moments a date field accepts from rules, in UNIX seconds: 2001 up to 2100. A value outside was
    /// not written in UNIX seconds (milliseconds, or already counted from 2001).
    public static let plausibleMoments = referenceDate..<4_102_444_800

    public init(
        attributesType: String, file: String, dateEncoding: DateEncoding, contentState: Part, attributes: Part?
    ) {
        self.attributesType = attributesType
        self.file = file
        self.dateEncoding = dateEncoding
        self.contentState = contentState
        self.attributes = attributes
    }

    /// A push's content-state under the contract: its date fields written as the contract says, or how it
    /// breaks the contract. Pure.
    public func conformState(_ value: JSONValue) -> Result<JSONValue, ContractBreach> {
        conform(value, contentState, part: "content-state")
    }

    /// A start's attributes under the contract (unchecked when it says nothing of attributes).
    public func conformAttributes(_ value: JSONValue) -> Result<JSONValue, ContractBreach> {
        guard let attributes else { return .success(value) }
        return conform(value, attributes, part: "attributes")
    }

    private func conform(_ value: JSONValue, _ part: Part, part name: String) -> Result<JSONValue, ContractBreach> {
        var out = value
        var problems: [SchemaViolation] = []
        for path in part.dates {
            guard let found = value.member(at: path), found != .null else { continue }
            let pointer = "/" + path.map(JSONPointer.escape).joined(separator: "/")
            guard let number = found.doubleValue, number.isFinite, abs(number) < 1e15,
                case let seconds = Int(number.rounded()), Self.plausibleMoments.contains(seconds)
            else {
                problems.append(
                    SchemaViolation(
                        pointer: pointer, atKey: false,
                        message:
                            "\(found.jsonString()) is not a moment in UNIX seconds (2001–2100): rules write dates as UNIX seconds and the contract converts them (\(dateEncoding.rawValue))"
                    ))
                continue
            }
            out = out.setting(dateEncoding.encode(seconds), at: path)
        }
        guard problems.isEmpty else { return .failure(ContractBreach(part: name, violations: problems)) }
        let violations = part.schema.validate(out)
        return violations.isEmpty ? .success(out) : .failure(ContractBreach(part: name, violations: violations))
    }
}

/// How a content-state or attributes object breaks its contract: every violation, by field.
public struct ContractBreach: Error, Sendable, Hashable, CustomStringConvertible {
    /// `content-state` or `attributes`.
    public var part: String
    public var violations: [SchemaViolation]

    /// `content-state.homeScore: expected integer, got string "1"; …`
    public var description: String {
        violations.map { v in
            let field = (try? JSONPointer(v.pointer))?.tokens ?? [v.pointer]
            return ([part] + field).joined(separator: ".") + ": " + v.message
        }.joined(separator: "; ")
    }
}

extension JSONValue {
    /// The value at a path of member names, if every step is an object member.
    func member(at path: [String]) -> JSONValue? {
        var value: JSONValue? = self
        for name in path { value = value?[name] }
        return value
    }

    /// This value with the member at `path` replaced (objects along the path must exist).
    func setting(_ newValue: JSONValue, at path: [String]) -> JSONValue {
        guard let first = path.first else { return newValue }
        guard case .object(var members) = self, let inner = members[first] else { return self }
        members[first] = inner.setting(newValue, at: Array(path.dropFirst()))
        return .object(members)
    }
}
