import Foundation
import HTTP
import Testing

@Suite("CurlTransport with file:// URLs")
struct FileURLTests {
    @Test func readsAFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("liverelay-\(UUID().uuidString).json")
        try Data(#"{"score":[2,1]}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let response = try await transport.send(HTTPRequest(url: file.absoluteString))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"score":[2,1]}"#)
    }

    @Test func missingFileIsFileNotFound() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let error = await expectFailure(.fileNotFound) { () async throws(HTTPError) in
            try await transport.send(HTTPRequest(url: "file:///nonexistent/liverelay/feed.json"))
        }
        #expect(error?.url == "file:///nonexistent/liverelay/feed.json")
    }

    @Test func fileLargerThanTheCapIsRefused() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("liverelay-\(UUID().uuidString).bin")
        try Data(repeating: 1, count: 10_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        await expectFailure(.responseTooLarge) { () async throws(HTTPError) in
            try await transport.send(HTTPRequest(url: file.absoluteString, maxResponseBytes: 1_000))
        }
    }

    @Test(arguments: ["ftp://127.0.0.1/feed.json", "gopher://127.0.0.1/", "http://[::1/"])
    func unsupportedOrMalformedURLIsInvalid(url: String) async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        await expectFailure(.invalidURL) { () async throws(HTTPError) in
            try await transport.send(HTTPRequest(url: url))
        }
    }
}
