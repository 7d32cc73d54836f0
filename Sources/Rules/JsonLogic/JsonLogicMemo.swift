import LiveRelayCore
import Synchronization

/// The values of `var` paths already looked up in one data object, shared by every expression evaluated
/// against it: a thousand rules that read `curr.state` hash its three steps once, not a thousand times.
///
/// Valid for one data object only: iteration bodies (`map`, `filter`, `reduce`, …), which read each item as
/// their data, never use it. Not thread-safe; one evaluation owns it.
public final class JsonLogicMemo {
    private var values: [JSONValue?]
    private var known: [Bool]

    /// A memo for every path compiled so far (paths compiled later are looked up directly).
    public init() {
        let count = Self.slots.withLock { $0.count }
        values = Array(repeating: nil, count: count)
        known = Array(repeating: false, count: count)
    }

    /// The value at `path` in `data`, looked up once per memo.
    func lookup(_ path: JsonLogicPath, in data: JSONValue) -> JSONValue? {
        let slot = path.slot
        guard slot >= 0, slot < known.count else { return path.lookup(in: data) }
        if known[slot] { return values[slot] }
        let found = path.lookup(in: data)
        values[slot] = found
        known[slot] = true
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
