import Foundation
import LiveRelayCore
import Testing

@Suite struct SourceDocumentTests {
    @Test func aMissingFileAndInvalidJSONAreDiagnosticsNamingTheFile() throws {
        #expect(throws: Diagnostics.self) { try SourceDocument.read(path: "/nonexistent/x.json", what: "token file") }
        do {
            _ = try SourceDocument.read(path: "/nonexistent/x.json", what: "token file")
        } catch {
            #expect(error.description == "/nonexistent/x.json: cannot read the token file")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sd-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "{\n  \"a\": ,\n}".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try SourceDocument.read(path: path, what: "config file")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "\(path):2:8: invalid JSON: unexpected ',': expected a value")
        }
    }
}
