import Foundation

/// A JSON file a person wrote (a config, a token file, a replay sequence), read with its source map so
/// every later problem can name `file:line:column`.
public enum SourceDocument {
    /// Reads and parses `path`; an unreadable file or invalid JSON is a diagnostic naming the file (and the
    /// position, for invalid JSON). `what` names the file in messages ("config file", "token file").
    public static func read(path: String, what: String) throws(Diagnostics) -> (JSONValue, SourceMap) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Diagnostics([Diagnostic(file: path, location: nil, message: "cannot read the \(what)")])
        }
        do {
            return try JSONParser.parseWithSourceMap(data)
        } catch {
            throw Diagnostics([
                Diagnostic(file: path, location: error.location, message: "invalid JSON: \(error.message)")
            ])
        }
    }
}
