import Foundation
public import LiveRelayCore

extension JSONValue {
    /// JsonLogic truthiness: JavaScript's, except that an empty array is falsy.
    ///
    /// `null`, `false`, `0`, `NaN`, `""` and `[]` are falsy; everything else, including `"0"` and `{}`, is truthy.
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d != 0 && !d.isNaN
        case .decimal(let d): return !d.isZero && !d.isNaN
        case .string(let s): return !s.isEmpty
        case .array(let a): return !a.isEmpty
        case .object: return true
        }
    }
}
