extension HTTPError {
    /// A URL fit for logs, errors and metrics: userinfo (`user:password@`) and the fragment are removed,
    /// and every query value becomes `…` while query names stay
    /// (`https://u:p@api.example/x?key=s3cr3t&a` → `https://api.example/x?key=…&…`).
    ///
    /// It works on the text, so it also redacts URLs too malformed to parse.
    public static func redact(_ url: String) -> String {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var result = redactUserinfo(rest)
        if let query {
            result += "?"
            result += query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
                if let equals = item.firstIndex(of: "=") { return String(item[..<equals]) + "=…" }
                return item.isEmpty ? "" : "…"
            }.joined(separator: "&")
        }
        return result
    }

    /// Drops everything up to the last `@` of the authority (the part after `scheme://` and before `/`).
    private static func redactUserinfo(_ base: Substring) -> String {
        let authorityStart: Substring.Index
        if let separator = base.firstRange(of: "://") {
            authorityStart = separator.upperBound
        } else {
            authorityStart = base.startIndex
        }
        let afterScheme = base[authorityStart...]
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return String(base) }
        return String(base[..<authorityStart] + base[base.index(after: at)...])
    }
}
