/// Times and numbers as the page prints them: UTC, computed from UNIX seconds without a formatter (a long
/// replay prints tens of thousands of them).
enum ReportTime {
    /// `2026-07-03 18:44:00Z`.
    static func full(_ t: Int) -> String { date(t) + " " + clock(t, seconds: true) + "Z" }

    /// `18:44`, or `18:44:30` with `seconds`.
    static func clock(_ t: Int, seconds: Bool = false) -> String {
        let s = ((t % 86_400) + 86_400) % 86_400
        let hm = two(s / 3600) + ":" + two(s / 60 % 60)
        return seconds ? hm + ":" + two(s % 60) : hm
    }

    /// `2026-07-03` (the proleptic Gregorian calendar, days from the civil algorithm).
    static func date(_ t: Int) -> String {
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return String(year) + "-" + two(month) + "-" + two(day)
    }

    /// A duration in words: `2 h`, `45 min`, `1 h 30 min`, `40 s`.
    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds) s" }
        let h = seconds / 3600
        let m = seconds / 60 % 60
        if h == 0 { return "\(m) min" }
        return m == 0 ? "\(h) h" : "\(h) h \(m) min"
    }

    /// A coordinate with one decimal at most: `12`, `12.5`.
    static func number(_ x: Double) -> String {
        let tenths = Int((x * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let a = abs(tenths)
        return a % 10 == 0 ? sign + String(a / 10) : sign + String(a / 10) + "." + String(a % 10)
    }

    /// A relevance or a price as JSON would print it, without a needless `.0`.
    static func value(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }
}
