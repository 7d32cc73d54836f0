import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// Reading the committed recordings (provenance in Samples/recordings/SOURCE.md) and hand-written bodies.
enum PresetTestSupport {
    static func recording(_ name: String) throws -> Data {
        try Data(contentsOf: Repository.url("Samples/recordings/\(name)"))
    }

    static func sample(_ path: String) throws -> Data {
        try Data(contentsOf: Repository.url("Samples/\(path)"))
    }

    /// The failure a body must produce, or a recorded issue if it normalises.
    static func failure(_ normalizer: some FeedNormalizer, _ body: String) -> NormalizationFailure? {
        do {
            _ = try normalizer.normalize(Data(body.utf8))
            Issue.record("expected a failure for \(body.prefix(80))")
            return nil
        } catch {
            return error
        }
    }
}

extension JSONValue {
    /// An exact decimal from its text, for expectations on prices.
    static func dec(_ text: String) -> JSONValue { .decimal(Decimal(string: text)!) }
}
