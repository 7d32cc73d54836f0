import Foundation

/// A tolerant ISO 8601 reader for the forms feeds send: `2026-06-28T19:00Z`, `…T19:00:00Z`,
/// `…T19:00:00.123+02:00`, and a bare date. Returns UNIX seconds.
enum ISO8601 {
    static func parse(_ text: String) -> Int? {
        let pattern =
            #"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return nil }
        func group(_ i: Int) -> String? {
            guard let r = Range(m.range(at: i), in: text) else { return nil }
            return String(text[r])
        }
        var c = DateComponents()
        c.calendar = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")
        c.year = Int(group(1)!)
        c.month = Int(group(2)!)
        c.day = Int(group(3)!)
        c.hour = group(4).flatMap(Int.init) ?? 0
        c.minute = group(5).flatMap(Int.init) ?? 0
        c.second = group(6).flatMap(Int.init) ?? 0
        guard let month = c.month, (1...12).contains(month), let day = c.day, (1...31).contains(day),
            let date = c.date
        else { return nil }
        var seconds = Int(date.timeIntervalSince1970)
        if let zone = group(7), zone != "Z" {
            let digits = zone.dropFirst().replacingOccurrences(of: ":", with: "")
            let offset = (Int(digits.prefix(2)) ?? 0) * 3600 + (Int(digits.suffix(2)) ?? 0) * 60
            seconds -= zone.hasPrefix("-") ? -offset : offset
        }
        return seconds
    }
}
