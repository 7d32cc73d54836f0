/// A JSON text that is not valid JSON, with where it went wrong.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem.
    public var offset: Int
    /// 1-based line and column of the problem.
    public var location: SourceLocation
    /// What was wrong, in words.
    public var message: String
    /// True when the text went past a limit the caller set (``JSONParser/parseWithSourceMap(_:numbers:maxValues:)``)
    /// rather than being invalid JSON.
    public var pastLimit = false

    public var description: String { "\(location.line):\(location.column): \(message)" }
}
