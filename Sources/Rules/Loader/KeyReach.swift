import LiveRelayCore

/// Which activity keys a rule can make, read from its key as written: literal text and the parts only known
/// at run time. An update, end or timer rule acts only on an activity a start made, so a rule whose keys no
/// start rule can make never fires (`stocks-AAPL` beside starts of `stock-AAPL`). Pure, and it errs on the
/// side of "may match": a key it cannot read is never reported.
struct KeyPattern: Hashable, CustomStringConvertible {
    /// The key's parts: text as written, or `nil` for a part known only at run time.
    var parts: [String?]

    /// The pattern of a key as written: a text, or `cat` of texts, numbers and expressions; `nil` for
    /// anything else.
    init?(_ written: JSONValue) {
        switch written {
        case .string(let text):
            parts = [text]
        case .object(let members) where members.count == 1:
            guard let arguments = members["cat"] else { return nil }
            parts = (arguments.arrayValue ?? [arguments]).map { part in
                switch part {
                case .string(let text): text
                case .int(let n): String(n)
                default: nil
                }
            }
        default:
            return nil
        }
    }

    /// The text before the first part known only at run time.
    var prefix: String { parts.prefix { $0 != nil }.compactMap { $0 }.joined() }
    /// The text after the last part known only at run time.
    var suffix: String { parts.reversed().prefix { $0 != nil }.compactMap { $0 }.reversed().joined() }
    /// True when every part is written.
    var isLiteral: Bool { !parts.contains(nil) }

    /// False only when no key the two can make is the same: their written starts or ends disagree.
    func mayMatch(_ other: KeyPattern) -> Bool {
        if isLiteral, other.isLiteral { return prefix == other.prefix }
        let (a, b) = (prefix, other.prefix)
        guard a.hasPrefix(b) || b.hasPrefix(a) else { return false }
        let (x, y) = (suffix, other.suffix)
        // A literal's whole text is its start and its end.
        return x.hasSuffix(y) || y.hasSuffix(x)
    }

    /// How a message shows it: `stock-…`.
    var description: String { parts.map { $0 ?? "…" }.joined() }
}

enum KeyReach {
    /// A warning for each update, end or timer rule whose keys no start rule of the set can make. Nothing
    /// when the set has no start rule (rule files checked without the one that starts).
    static func unreachable(_ rules: [Rule]) -> [Diagnostic] {
        let starts = rules.filter { $0.event == .start }
        guard !starts.isEmpty else { return [] }
        let made = starts.map { KeyPattern($0.writtenKey) }
        // A start whose key cannot be read may make any key.
        if made.contains(nil) { return [] }
        let patterns = Array(Set(made.compactMap { $0 })).sorted { $0.description < $1.description }
        var out: [Diagnostic] = []
        for rule in rules where rule.event != .start {
            guard let pattern = KeyPattern(rule.writtenKey), !patterns.contains(where: pattern.mayMatch) else {
                continue
            }
            let shown = patterns.prefix(4).map { "\"\($0)\"" }.joined(separator: ", ")
            out.append(
                Diagnostic(
                    file: rule.source.file, location: rule.keyLocation ?? rule.source.location,
                    message:
                        "rule \(rule.id): no start rule makes a key like \"\(pattern)\" (start rules make \(shown)\(patterns.count > 4 ? ", …" : "")): this \(rule.trigger.isTimer ? "timer rule" : "\(rule.event) rule") never finds an activity to act on",
                    severity: .warning))
        }
        return out
    }
}
