public import Foundation

extension ReplayReport {
    /// The report as `--report FILE.json` writes it: UTF-8 JSON, keys sorted, indented, so two runs of the
    /// same replay write the same bytes.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
