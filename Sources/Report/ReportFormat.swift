/// The file a report is written to, chosen by its extension.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// A self-contained page: SVG timelines, budget charts and tables, no network needed.
    case html
    /// The ``ReplayReport`` itself, for other tools (`docs/report.schema.json`).
    case json

    /// The format of `path` by its extension (`.html`, `.htm`, `.json`, any case); `nil` for anything else.
    public init?(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": self = .html
        case "json": self = .json
        default: return nil
        }
    }
}
