/// Which build runs: `liverelay --version` prints it and `liverelay_build_info` carries it as labels.
public enum BuildInfo {
    /// LiveRelay's version (raised with each release).
    public static let version = "0.30.0"

    /// The Swift compiler the binary was built with.
    public static let swift: String = {
        #if compiler(>=6.4)
            "6.4+"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #else
            "older than 6.2"
        #endif
    }()

    /// `release` or `debug`.
    public static let configuration: String = {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }()

    /// `liverelay 0.30.0 (release build, Swift 6.3)`.
    public static var description: String { "liverelay \(version) (\(configuration) build, Swift \(swift))" }
}
