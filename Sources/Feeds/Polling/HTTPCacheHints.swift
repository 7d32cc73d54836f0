import Foundation

/// Reads the response headers that bound how often a feed may be polled.
enum HTTPCacheHints {
    /// `max-age` of a `Cache-Control` value, in seconds (`public, max-age=1` → 1). `nil` when absent or when
    /// the response may not be stored at all (`no-store`).
    static func maxAge(_ cacheControl: String?) -> Int? {
        guard let cacheControl else { return nil }
        var maxAge: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            if parts[0] == "no-store" { return nil }
            if parts[0] == "max-age", parts.count == 2 {
                maxAge = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
        }
        return maxAge.map { max(0, $0) }
    }

    /// The seconds a `Retry-After` value asks for at `now` (UNIX seconds): delay-seconds (`120`) or an HTTP
    /// date (`Wed, 21 Oct 2015 07:28:00 GMT`). `nil` when the value is neither.
    static func retryAfter(_ value: String?, now: Int) -> Int? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII), let seconds = Int(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return max(0, Int(date.timeIntervalSince1970) - now) }
        }
        return nil
    }
}
