/// The parts of a document a reader needs, so a large body is parsed into a tree of only those parts; the
/// rest is still checked to be valid JSON, but never built (no strings, no dictionaries).
///
/// A selection is a tree of steps: a named member (or an array index, written as its decimal text), or any
/// member or element. Where an included path ends, the whole value there is kept.
public struct JSONSelection: Sendable {
    /// One step of a path.
    public enum Step: Sendable, Hashable {
        /// The member with this name, or the array element at this index (its decimal text).
        case key(String)
        /// Every member of an object or element of an array.
        case any
    }

    fileprivate var keepAll = false
    fileprivate var named: [(key: String, bytes: [UInt8], selection: JSONSelection)] = []
    fileprivate var anyMember: [JSONSelection] = []

    /// Nothing selected yet.
    public init() {}

    /// A selection of the whole document.
    public static var everything: JSONSelection {
        var s = JSONSelection()
        s.keepAll = true
        return s
    }

    /// Adds a path; the value it reaches is kept whole.
    public mutating func include(_ path: some Collection<Step>) {
        guard !keepAll else { return }
        guard let first = path.first else {
            keepAll = true
            named = []
            anyMember = []
            return
        }
        let rest = path.dropFirst()
        switch first {
        case .any:
            if anyMember.isEmpty { anyMember = [JSONSelection()] }
            anyMember[0].include(rest)
        case .key(let key):
            if let i = named.firstIndex(where: { $0.key == key }) {
                named[i].selection.include(rest)
            } else {
                var child = JSONSelection()
                child.include(rest)
                named.append((key, Array(key.utf8), child))
            }
        }
    }

    /// Keeps the name of every member at `path` (each value pruned to what else is selected below it), for
    /// messages that say what a document has instead of what was expected.
    public mutating func includeMemberNames(at path: some Collection<Step>) {
        guard !keepAll else { return }
        guard let first = path.first else {
            if anyMember.isEmpty { anyMember = [JSONSelection()] }
            return
        }
        let rest = path.dropFirst()
        switch first {
        case .any:
            if anyMember.isEmpty { anyMember = [JSONSelection()] }
            anyMember[0].includeMemberNames(at: rest)
        case .key(let key):
            if let i = named.firstIndex(where: { $0.key == key }) {
                named[i].selection.includeMemberNames(at: rest)
            } else {
                var child = JSONSelection()
                child.includeMemberNames(at: rest)
                named.append((key, Array(key.utf8), child))
            }
        }
    }

    /// Whether the whole value is kept.
    var keepsAll: Bool { keepAll }

    /// Whether members are looked up by name at all (else only `any` applies).
    var hasNamedMembers: Bool { !named.isEmpty }

    /// The selection below the member whose name is these bytes (no escapes), if any.
    func member(bytes: UnsafeBufferPointer<UInt8>) -> JSONSelection? {
        for entry in named where entry.bytes.count == bytes.count && entry.bytes.elementsEqual(bytes) {
            return merged(entry.selection)
        }
        return anyMember.first
    }

    /// The selection below the member with this name, if any.
    func member(_ key: String) -> JSONSelection? {
        if let entry = named.first(where: { $0.key == key }) { return merged(entry.selection) }
        return anyMember.first
    }

    /// A named member that `any` also reaches is selected by both.
    private func merged(_ selection: JSONSelection) -> JSONSelection {
        guard let any = anyMember.first else { return selection }
        return selection.union(any)
    }

    private func union(_ other: JSONSelection) -> JSONSelection {
        if keepAll || other.keepAll { return .everything }
        var out = self
        for entry in other.named {
            if let i = out.named.firstIndex(where: { $0.key == entry.key }) {
                out.named[i].selection = out.named[i].selection.union(entry.selection)
            } else {
                out.named.append(entry)
            }
        }
        if let any = other.anyMember.first {
            out.anyMember = [out.anyMember.first.map { $0.union(any) } ?? any]
        }
        return out
    }
}
