/// Builds XHTML-compatible markup: every element closed, every attribute quoted, every text and attribute
/// value escaped, so the page parses as XML as well as HTML and user data (alert texts, rule ids, notes)
/// can never become markup.
struct HTMLWriter {
    private(set) var text = ""

    init(capacity: Int = 1 << 16) { text.reserveCapacity(capacity) }

    /// Opens `tag` with its attributes (in the order given; a `nil` value leaves the attribute out).
    mutating func open(_ tag: String, _ attributes: KeyValuePairs<String, String?> = [:]) {
        text += "<" + tag
        attribute(attributes)
        text += ">"
    }

    mutating func close(_ tag: String) { text += "</" + tag + ">" }

    /// An element with no content, written `<tag …/>`.
    mutating func empty(_ tag: String, _ attributes: KeyValuePairs<String, String?> = [:]) {
        text += "<" + tag
        attribute(attributes)
        text += "/>"
    }

    /// An element holding only text.
    mutating func element(_ tag: String, _ attributes: KeyValuePairs<String, String?> = [:], _ content: String) {
        open(tag, attributes)
        self.text(content)
        close(tag)
    }

    /// Escaped text.
    mutating func text(_ content: String) { text += HTMLWriter.escape(content) }

    /// Markup written as is: only for constant strings of this module (the style sheet, the script).
    mutating func raw(_ markup: StaticString) { text += markup.description }

    private mutating func attribute(_ attributes: KeyValuePairs<String, String?>) {
        for (name, value) in attributes {
            guard let value else { continue }
            text += " " + name + "=\"" + HTMLWriter.escape(value) + "\""
        }
    }

    /// `&`, `<`, `>`, `"` and `'` as character references; everything else as is.
    static func escape(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
