import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A page parsed as XML (the report's markup is XHTML-compatible): every element with its attributes and
/// text, or the parser's error. A page that is not well-formed does not parse.
final class MarkupTree: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        /// The names of the enclosing elements, outermost first.
        var path: [String]
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []
    private(set) var error: String?

    init(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        if !parser.parse() {
            error = "\(parser.parserError.map { "\($0)" } ?? "unknown error") at line \(parser.lineNumber)"
        }
    }

    /// The elements named `name` whose `class` attribute holds `className`.
    func all(_ name: String, class className: String? = nil) -> [Element] {
        elements.filter { element in
            element.name == name
                && (className.map { (element.attributes["class"] ?? "").split(separator: " ").contains(Substring($0)) }
                    ?? true)
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        open.append(elements.count)
        elements.append(
            Element(name: elementName, attributes: attributes, path: open.dropLast().map { elements[$0].name }))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        open.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        for index in open { elements[index].text += string }
    }
}
