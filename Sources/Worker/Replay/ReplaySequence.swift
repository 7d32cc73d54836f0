import Feeds
import Foundation
public import LiveRelayCore

/// A recorded sequence of feed bodies with the moments they were seen, for `liverelay replay`.
///
/// ```json
/// {"feed": "espn-worldcup",
///  "steps": [{"at": "2026-06-28T19:00:30Z", "body": "02-kick-off.json", "note": "kick-off"}],
///  "until": "2026-06-28T22:00:00Z"}
/// ```
public struct ReplaySequence: Sendable, Decodable {
    /// The config feed whose mapping and rules the bodies go through.
    public var feed: String
    public var description: String?
    public var steps: [Step]
    /// ISO 8601 time the simulated clock runs on to after the last step (timer rules come due and held
    /// pushes go out on the way); by default the last step's time.
    public var until: String?

    public struct Step: Sendable, Decodable {
        /// ISO 8601 time at which the body was seen: the simulated clock.
        public var at: String
        /// The body file, relative to the sequence file.
        public var body: String
        public var note: String?
    }

    /// Reads a sequence file. Errors name the file, line and column.
    public static func load(path: String) throws(Diagnostics) -> ReplaySequence {
        let (document, map) = try SourceDocument.read(path: path, what: "sequence file")
        let sequence: ReplaySequence
        do {
            sequence = try JSONValueDecoder().decode(ReplaySequence.self, from: document)
        } catch {
            throw Diagnostics([
                Diagnostic(file: path, location: map.location(error.pointer.description), message: error.message)
            ])
        }
        for (i, step) in sequence.steps.enumerated() where ISO8601Time.seconds(step.at) == nil {
            throw Diagnostics([
                Diagnostic(
                    file: path, location: map.location("/steps/\(i)/at", preferKey: false),
                    message: "steps[\(i)].at: \"\(step.at)\" is not an ISO 8601 time")
            ])
        }
        if let until = sequence.until, ISO8601Time.seconds(until) == nil {
            throw Diagnostics([
                Diagnostic(
                    file: path, location: map.location("/until", preferKey: false),
                    message: "until: \"\(until)\" is not an ISO 8601 time")
            ])
        }
        return sequence
    }
}

/// ISO 8601 times for the simulated clock and for printing.
public enum ISO8601Time {
    public static func seconds(_ text: String) -> Int? {
        guard let date = ISO8601DateFormatter().date(from: text) else { return nil }
        return Int(date.timeIntervalSince1970)
    }

    public static func string(_ seconds: Int) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
