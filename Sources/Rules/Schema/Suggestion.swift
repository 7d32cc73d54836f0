/// "Did you mean …?" suggestions for misspelt keys and keywords.
public enum Suggestion {
    /// The candidate closest to `word`, if it is at most two edits away (a swap of neighbours counts as one)
    /// and closer than the length of either word, so that `x` does not suggest `id`. Ties go to the first
    /// candidate in sorted order, so suggestions are stable.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let w = Array(word.unicodeScalars)
        var best: (distance: Int, candidate: String)?
        for candidate in candidates.sorted() where candidate != word {
            let d = distance(w, Array(candidate.unicodeScalars))
            guard d <= 2, d < min(w.count, candidate.unicodeScalars.count) else { continue }
            if best == nil || d < best!.distance { best = (d, candidate) }
        }
        return best?.candidate
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
