/// A 1-based line and column in a text file. Columns count Unicode scalars, as editors do.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    /// The location of a byte offset in UTF-8 text.
    static func of(offset: Int, in bytes: some Collection<UInt8>) -> SourceLocation {
        var line = 1
        var column = 1
        var i = 0
        for b in bytes {
            if i >= offset { break }
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return SourceLocation(line: line, column: column)
    }
}

/// Where each value and each object key of a parsed JSON document sits, by JSON Pointer.
public struct SourceMap: Sendable {
    let bytes: [UInt8]
    let values: [String: Int]
    let keys: [String: Int]
    /// The location of every `stride`-th byte offset, so a lookup scans at most `stride` bytes: a file of
    /// many rules is located in linear time, not by counting lines from the top for each rule.
    private let checkpoints: [SourceLocation]
    private static let stride = 1024

    init(bytes: [UInt8], values: [String: Int], keys: [String: Int]) {
        self.bytes = bytes
        self.values = values
        self.keys = keys
        var checkpoints: [SourceLocation] = []
        checkpoints.reserveCapacity(bytes.count / Self.stride + 1)
        var line = 1
        var column = 1
        for (i, b) in bytes.enumerated() {
            if i % Self.stride == 0 { checkpoints.append(SourceLocation(line: line, column: column)) }
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.checkpoints = checkpoints
    }

    /// The location of a byte offset, from the nearest checkpoint before it.
    private func location(offset: Int) -> SourceLocation {
        let k = min(offset / Self.stride, checkpoints.count - 1)
        guard k >= 0 else { return SourceLocation(line: 1, column: 1) }
        var location = checkpoints[k]
        var i = k * Self.stride
        while i < offset, i < bytes.count {
            let b = bytes[i]
            if b == 0x0A {
                location.line += 1
                location.column = 1
            } else if b & 0xC0 != 0x80 {
                location.column += 1
            }
            i += 1
        }
        return location
    }

    /// The location of the value at `pointer` (RFC 6901, `""` is the document).
    public func valueLocation(_ pointer: String) -> SourceLocation? {
        values[pointer].map(location(offset:))
    }

    /// The location of the key whose value is at `pointer`; for array elements, the element itself.
    public func keyLocation(_ pointer: String) -> SourceLocation? {
        if let offset = keys[pointer] { return location(offset: offset) }
        return valueLocation(pointer)
    }

    /// The best location for a problem at `pointer`: the key when the value has one, else the value, else the
    /// nearest enclosing value that exists (a missing key is reported at its object).
    public func location(_ pointer: String, preferKey: Bool = true) -> SourceLocation {
        var p = pointer
        while true {
            if let loc = preferKey ? keyLocation(p) : valueLocation(p) { return loc }
            guard let slash = p.lastIndex(of: "/") else { return SourceLocation(line: 1, column: 1) }
            p = String(p[..<slash])
        }
    }
}
