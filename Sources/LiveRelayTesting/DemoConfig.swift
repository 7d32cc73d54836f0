public import Foundation
public import LiveRelayCore

/// The demo config (`Samples/demo/liverelay.json`) as a test edits it: its one feed pointed elsewhere, its
/// rules, provider and sections replaced, then written into a folder. Relative paths in it resolve against
/// that folder.
public struct DemoConfig: Sendable {
    /// The config's top-level object.
    public var sections: [String: JSONValue]

    /// The demo config, without its `$schema`, its feed reading the first-half recording, its rules the
    /// repository's soccer rules and its contract MatchAttributes' (absolute paths, so it can be written
    /// anywhere).
    public init() throws {
        guard
            case .object(var sections) = try JSONParser.parse(
                Data(contentsOf: Repository.url("Samples/demo/liverelay.json")))
        else { throw DemoConfigError(message: "the demo config is not an object") }
        sections["$schema"] = nil
        sections["rules"] = [.string(Repository.path("Rules/soccer.rules.json"))]
        sections["contracts"] = [.string(Repository.path("Rules/contracts/MatchAttributes.contract.json"))]
        self.sections = sections
        try setFeed(url: "file:" + Repository.path("Samples/recordings/espn-soccer-scoreboard-1-first-half.json"))
    }

    /// A top-level section.
    public subscript(section: String) -> JSONValue? {
        get { sections[section] }
        set { sections[section] = newValue }
    }

    /// Points the demo's feed at `url`, polled every `interval` seconds when given.
    public mutating func setFeed(url: String, interval: Int? = nil) throws {
        guard case .array(var feeds) = sections["feeds"], case .object(var feed) = feeds.first else {
            throw DemoConfigError(message: "the demo config has no feed")
        }
        feed["url"] = .string(url)
        if let interval { feed["interval"] = .int(interval) }
        feeds[0] = .object(feed)
        sections["feeds"] = .array(feeds)
    }

    /// Writes the config as `liverelay.json` into `directory`; returns its path.
    @discardableResult
    public func write(to directory: URL) throws -> String {
        let path = directory.appendingPathComponent("liverelay.json").path
        try JSONValue.object(sections).jsonString().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// The demo config has changed shape.
public struct DemoConfigError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
