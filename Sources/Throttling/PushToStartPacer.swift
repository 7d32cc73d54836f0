/// Paces push-to-start per (device token, attributes type): iOS accepts only a few starts in a short window
/// per device, and drops the rest. Pure; the caller keeps it and persists it.
public struct PushToStartPacer: Sendable, Hashable, Codable {
    /// Starts allowed per window per device and attributes type.
    public var limit: Int
    /// The window in seconds.
    public var window: Int
    private var sends: [String: SendWindow] = [:]

    public init(limit: Int = 10, window: Int = 3600) {
        self.limit = limit
        self.window = window
    }

    /// Whether a start may go to this device now, or the time from which it may.
    public enum Verdict: Sendable, Hashable {
        case allow
        case deferUntil(Int)
    }

    /// Checks and, when allowed, records one start.
    public mutating func admit(token: String, attributesType: String, now: Int) -> Verdict {
        admit(key: Self.key(token: token, attributesType: attributesType), now: now)
    }

    /// As ``admit(token:attributesType:now:)``, for the window's ``key(token:attributesType:)`` made already.
    public mutating func admit(key: String, now: Int) -> Verdict {
        let wait = sends[key, default: SendWindow()].admit(now: now, size: limit, period: window)
        return wait.map(Verdict.deferUntil) ?? .allow
    }

    /// The key a device token's window is kept under (in memory and in the store).
    public static func key(token: String, attributesType: String) -> String { attributesType + " " + token }

    /// Whether the window of `key` is held.
    public func knows(_ key: String) -> Bool { sends[key] != nil }

    /// The send times in the window of `key` (oldest first).
    public func sends(of key: String) -> [Int] { sends[key]?.sends ?? [] }

    /// Puts back a window saved by a previous process (or another worker).
    public mutating func restore(_ key: String, sends times: [Int]) { sends[key] = SendWindow(sends: times) }
}
