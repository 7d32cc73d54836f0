import LiveRelayCore
import Synchronization

/// The values of `var` paths already looked up in one data object, shared by every expression evaluated
/// against it: a thousand rules that read `curr.state` hash its three steps once, not a thousand times.
///
/// Valid for one data object only: iteration bodies (`map`, `filter`, `reduce`, …), which read each item as
/// their data, never use it. Not thread-safe; one evaluation owns it.
public final class JsonLogicMemo {
    /// By path slot: looked up (the value, or `nil` when the path is missing), or not yet. One array, so a
    /// memo (one per subscription a personal rule looks at) is two allocations, not three.
    private var looked: [Slot]

    private enum Slot {
        case unknown
        case known(JSONValue?)
    }

    /// A memo for every path compiled so far (paths compiled later are looked up directly).
    public init() {
        let count = Self.slots.withLock { $0.count }
        looked = Array(repeating: .unknown, count: count)
    }

    /// The value at `path` in `data`, looked up once per memo.
    func lookup(_ path: JsonLogicPath, in data: JSONValue) -> JSONValue? {
        let slot = path.slot
        guard slot >= 0, slot < looked.count else { return path.lookup(in: data) }
        if case .known(let value) = looked[slot] { return value }
        let found = path.lookup(in: data)
        looked[slot] = .known(found)
        return found
    }

    /// Every distinct path text compiled in this process, numbered.
    private static let slots = Mutex<[String: Int]>([:])

    /// The slot of a path, by its text; a new text gets the next one.
    static func slot(for text: String) -> Int {
        slots.withLock { table in
            if let slot = table[text] { return slot }
            table[text] = table.count
            return table.count - 1
        }
    }
}
