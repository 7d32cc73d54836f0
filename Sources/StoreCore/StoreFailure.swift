/// A store that could not be read or written: where (a state file's path, or `PostgreSQL host:port/db`) and
/// what was being done, never a password.
public struct StoreFailure: Error, Sendable, CustomStringConvertible {
    /// The state file, or the database.
    public var path: String
    public var message: String
    public var description: String { "state store \(path): \(message)" }

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}
