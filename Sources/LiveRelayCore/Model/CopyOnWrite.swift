/// A value kept behind one reference and copied only when it is changed while shared: for a value of many
/// strings, arrays and JSON values that the pipeline copies from stage to stage (a push, an activity's
/// record), where a copy of the reference is one retain and a copy of the value one per reference in it.
///
/// Reading borrows the value in place; changing it copies it first into a box of its own if another copy
/// shares the box (`isKnownUniquelyReferenced`), so a copy never sees another's change.
@propertyWrapper
public struct CopyOnWrite<Value: Sendable>: Sendable {
    /// Changed only while uniquely referenced (``wrappedValue``), so sharing it between threads is safe.
    private final class Box: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    public init(wrappedValue: Value) { box = Box(wrappedValue) }

    public var wrappedValue: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    /// The wrapper itself, to ask ``shares(_:)``.
    public var projectedValue: CopyOnWrite<Value> { self }

    /// Whether both hold the same box (then their values are the same).
    public func shares(_ other: CopyOnWrite<Value>) -> Bool { box === other.box }
}
