import Feeds
import Foundation
public import LiveRelayCore
import Rules

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
        /// The body file, relative to the sequence file; `nil` for a step that only registers ``tokens``.
        public var body: String?
        /// A token file (``TokenFile``), relative to the sequence file: what the apps registered at this
        /// moment, stored before the body is read.
        public var tokens: String?
        /// The config feed the body is from, when not the sequence's ``ReplaySequence/feed``.
        public var feed: String?
        public var note: String?
    }

    /// Every feed the sequence's bodies go through: its own, then those its steps name, each once.
    public var feeds: [String] {
        var out = [feed]
        for step in steps {
            if let other = step.feed, !out.contains(other) { out.append(other) }
        }
        return out
    }

    /// Reads a sequence file (`docs/sequence.schema.json`) and says every problem at once, each at its
    /// file, line and column: what the schema refuses (an unknown key, a missing body), a time that is not
    /// ISO 8601, a step before the one above it, an `until` before the last step, and, given the config's
    /// feeds, a feed it does not have.
    public static func load(path: String, knownFeeds: Set<String>? = nil) throws(Diagnostics) -> ReplaySequence {
        let (document, map) = try SourceDocument.read(path: path, what: "sequence file")
        func diagnostic(_ pointer: String, atKey: Bool = false, _ message: String) -> Diagnostic {
            // A problem with a key itself (unknown) is named by where the key is, not by the key.
            let name = ConfigLoader.keyPath(
                atKey ? String(pointer[..<(pointer.lastIndex(of: "/") ?? pointer.startIndex)]) : pointer)
            return Diagnostic(
                file: path, location: map.location(pointer, preferKey: atKey),
                message: name.isEmpty ? message : "\(name): \(message)")
        }
        let violations = SequenceSchema.schema.validate(document)
        guard violations.isEmpty else {
            throw Diagnostics(violations.map { diagnostic($0.pointer, atKey: $0.atKey, $0.message) })
        }
        let sequence: ReplaySequence
        do {
            sequence = try JSONValueDecoder().decode(ReplaySequence.self, from: document)
        } catch {
            throw Diagnostics([diagnostic(error.pointer.description, error.message)])
        }
        var problems: [Diagnostic] = []
        var previous: (index: Int, at: Int)?
        for (i, step) in sequence.steps.enumerated() {
            guard let at = ISO8601Time.seconds(step.at) else {
                problems.append(diagnostic("/steps/\(i)/at", "\"\(step.at)\" is not an ISO 8601 time"))
                continue
            }
            if let previous, at < previous.at {
                problems.append(
                    diagnostic(
                        "/steps/\(i)/at",
                        "\(step.at) is before steps[\(previous.index)] (\(sequence.steps[previous.index].at)): steps go forward in time"
                    ))
            }
            if at >= previous?.at ?? at { previous = (i, at) }
        }
        if let until = sequence.until {
            if let end = ISO8601Time.seconds(until) {
                if let last = previous, end < last.at {
                    problems.append(
                        diagnostic(
                            "/until",
                            "\(until) is before the last step (\(sequence.steps[last.index].at)): the clock runs on after it"
                        ))
                }
            } else {
                problems.append(diagnostic("/until", "\"\(until)\" is not an ISO 8601 time"))
            }
        }
        // The token files are read now: a wrong one is said before the replay begins, where it is.
        let directory = (path as NSString).deletingLastPathComponent
        for (i, step) in sequence.steps.enumerated() {
            guard let tokens = step.tokens else { continue }
            let file = resolve(tokens, against: directory)
            guard FileManager.default.isReadableFile(atPath: file) else {
                problems.append(diagnostic("/steps/\(i)/tokens", "cannot read the token file \(file)"))
                continue
            }
            do {
                _ = try TokenFile.load(path: file)
            } catch {
                problems += error.items
            }
        }
        if let knownFeeds {
            let known = knownFeeds.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            if !knownFeeds.contains(sequence.feed) {
                problems.append(diagnostic("/feed", "feed \"\(sequence.feed)\" is not in the config (it has \(known))"))
            }
            for (i, step) in sequence.steps.enumerated() {
                guard let feed = step.feed, !knownFeeds.contains(feed) else { continue }
                problems.append(
                    diagnostic("/steps/\(i)/feed", "feed \"\(feed)\" is not in the config (it has \(known))"))
            }
        }
        guard problems.isEmpty else { throw Diagnostics(problems) }
        return sequence
    }
}

/// A file a sequence names, relative to the sequence's folder unless absolute.
func resolve(_ file: String, against directory: String) -> String {
    file.hasPrefix("/") || directory.isEmpty ? file : directory + "/" + file
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
