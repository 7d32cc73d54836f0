public import Foundation

#if canImport(FoundationXML)
    public import FoundationXML
#endif

/// A page parsed as XML (the report's markup is XHTML-compatible): every element with its attributes and
/// text, or the parser's error. A page that is not well-formed does not parse.
public final class MarkupTree: NSObject, XMLParserDelegate {
    public struct Element: Sendable {
        public var name: String
        public var attributes: [String: String]
        public var text = ""
        /// The names of the enclosing elements, outermost first.
        public var path: [String]
    }

    public private(set) var elements: [Element] = []
    private var open: [Int] = []
    public private(set) var error: String?

    public init(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        if !parser.parse() {
            error = "\(parser.parserError.map { "\($0)" } ?? "unknown error") at line \(parser.lineNumber)"
        }
    }

    /// The elements named `name` whose `class` attribute holds `className`.
    public func all(_ name: String, class className: String? = nil) -> [Element] {
        elements.filter { element in
            element.name == name
                && (className.map { (element.attributes["class"] ?? "").split(separator: " ").contains(Substring($0)) }
                    ?? true)
        }
    }

    public func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        open.append(elements.count)
        elements.append(
            Element(name: elementName, attributes: attributes, path: open.dropLast().map { elements[$0].name }))
    }

    public func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        open.removeLast()
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        for index in open { elements[index].text += string }
    }
}
