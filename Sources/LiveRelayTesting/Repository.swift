public import Foundation

/// Paths inside this repository, for tests that read the committed samples, rules and recordings.
public enum Repository {
    /// The repository root (found from this source file, so it works from any working directory).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file or folder by its path from the root.
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// A file or folder path by its path from the root.
    public static func path(_ relative: String) -> String { url(relative).path }

    /// A built executable of this package (`liverelay`), next to the test bundle.
    public static func executable(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name)
    }

    /// A fresh temporary directory, removed by the caller.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("liverelay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
