import Foundation
import HTTP
import LiveRelayTesting
import Testing

@Suite("HTTPError URL redaction")
struct HTTPErrorRedactionTests {
    @Test(arguments: [
        ("https://api.example/x?key=s3cr3t", "https://api.example/x?key=…"),
        ("https://user:pa55@api.example:8443/v1/x?a=1&b=&c#frag", "https://api.example:8443/v1/x?a=…&b=…&…"),
        ("https://user@api.example/", "https://api.example/"),
        ("http://api.example/path/with@sign", "http://api.example/path/with@sign"),
        ("file:///tmp/feed.json", "file:///tmp/feed.json"),
        ("not a url?token=abc", "not a url?token=…"),
        ("https://api.example/x?", "https://api.example/x?"),
    ])
    func redacts(raw: String, redacted: String) {
        #expect(HTTPError.redact(raw) == redacted)
    }

    @Test func initRedacts() {
        let error = HTTPError(code: .timeout, url: "https://u:p@h/x?k=v", message: "m")
        #expect(error.url == "https://h/x?k=…")
        #expect(error.description == "timeout: https://h/x?k=…: m")
    }

    @Test func failedRequestReportsARedactedURL() async throws {
        try await withServer(handler: { _ in .fault(.reset) }) { server, transport in
            let url = "http://alice:hunter2@127.0.0.1:\(server.port)/v4/matches?apikey=SECRETKEY&id=537964"
            let error = await expectFailure(.connectionReset) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: url))
            }
            let unwrapped = try #require(error)
            #expect(unwrapped.url == "http://127.0.0.1:\(server.port)/v4/matches?apikey=…&id=…")
            for secret in ["hunter2", "alice", "SECRETKEY", "537964"] {
                #expect(!unwrapped.description.contains(secret))
            }
        }
    }
}
