public import Foundation

/// A request a fake provider (FCM, Pushwoosh, Getui) accepted, as it arrived, with any credential in the
/// body replaced by a placeholder: what a golden file compares byte for byte.
public struct FakeProviderRequest: Sendable, Hashable, Codable {
    /// The request path.
    public var path: String
    /// The body exactly as received (credentials masked), as UTF-8 text.
    public var body: String

    /// Creates a record.
    public init(path: String, body: String) {
        self.path = path
        self.body = body
    }

    /// The requests as pretty, key-sorted JSON with a final newline: the golden file format.
    public static func goldenJSON(_ requests: [FakeProviderRequest]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(requests) + Data("\n".utf8)
    }

    /// The body parsed as a JSON object.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }
}

/// Lets a loopback server's handler reach the fake made after the server started.
final class FakeBox<Fake: AnyObject & Sendable>: @unchecked Sendable {
    // Written once, before the first request can arrive; read under `lock`.
    private let lock = NSLock()
    private var _fake: Fake?
    var fake: Fake? {
        get { lock.withLock { _fake } }
        set { lock.withLock { _fake = newValue } }
    }
}
