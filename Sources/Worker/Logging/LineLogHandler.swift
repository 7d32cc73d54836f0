public import Foundation
public import Logging

/// One log line per event on standard error: readable text (`2026-11-26T08:47:03.125Z info liverelay.run:
/// activity started activity.key=match-760499 …`), or one JSON object per line for a log pipeline
/// (`{"ts":"2026-11-26T08:47:03.125Z","level":"info","logger":"liverelay.run","message":"activity started",
/// "activity.key":"match-760499",…}`): millisecond UTC timestamps, swift-log metadata as fields.
public struct LineLogHandler: LogHandler {
    /// How each line is written.
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let format: Format
    private let write: @Sendable (String) -> Void

    /// A handler for `label` writing lines of `format` through `write` (standard error by default).
    public init(
        label: String, format: Format, level: Logger.Level,
        write: @escaping @Sendable (String) -> Void = {
            try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8))
        }
    ) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        write(Self.line(format, at: Date(), level: event.level, label: label, message: "\(event.message)", fields))
    }

    /// The line of one event.
    public static func line(
        _ format: Format, at date: Date, level: Logger.Level, label: String, message: String,
        _ fields: Logger.Metadata
    ) -> String {
        let time = date.formatted(Self.timestamp)
        switch format {
        case .text:
            let rendered = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(time) \(level) \(label): \(message)\(rendered.isEmpty ? "" : " " + rendered)"
        case .json:
            var object: [String: Any] = ["ts": time, "level": level.rawValue, "logger": label, "message": message]
            for (key, value) in fields where object[key] == nil { object[key] = Self.json(value) }
            guard
                let data = try? JSONSerialization.data(
                    withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            else { return "{\"level\":\"error\",\"message\":\"log line could not be encoded\"}" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let s): s
        case .stringConvertible(let c): c.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    /// `2026-11-26T08:47:03.125Z`.
    static let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
}
