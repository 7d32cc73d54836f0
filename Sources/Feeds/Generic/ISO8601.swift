/// ISO 8601 date-times as feeds write them, to UNIX seconds: `YYYY-MM-DD`, then optionally `T` or a space
/// with `HH:MM`, optional `:SS` and fraction, and an optional zone (`Z`, `±HH:MM`, `±HHMM`). Read byte by
/// byte: it runs for every date field of every body (ESPN has one per match).
public enum ISO8601 {
    public static func parse(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                let d = Int(b[k]) - 48
                guard d >= 0, d <= 9 else { return nil }
                v = v * 10 + d
            }
            i += n
            return v
        }
        func take(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")),
            let day = digits(2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") {
            i += 1
            guard let h = digits(2), take(UInt8(ascii: ":")), let m = digits(2) else { return nil }
            hour = h
            minute = m
            if take(UInt8(ascii: ":")) {
                guard let s = digits(2) else { return nil }
                second = s
                if take(UInt8(ascii: ".")) {
                    let start = i
                    while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
                    guard i > start else { return nil }
                }
            }
        }
        var offset = 0
        if take(UInt8(ascii: "Z")) {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let h = digits(2) else { return nil }
            _ = take(UInt8(ascii: ":"))
            guard let m = digits(2) else { return nil }
            offset = sign * (h * 3600 + m * 60)
        }
        guard i == b.count else { return nil }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (a day past the month's end rolls over).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second - offset
    }
}
