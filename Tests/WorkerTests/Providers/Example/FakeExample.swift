import Foundation
import LiveRelayCore
import LiveRelayTesting
import Synchronization

/// The example service on loopback (HTTP/2 over TLS with the test CA): it refuses a wrong API key (401), a
/// token that is not lower-case hex (400), a body without `event`, `timestamp` and an object
/// `content-state`, and a start without `attributes-type`, `attributes` and `alert` (400). Accepted
/// requests are recorded.
final class FakeExample: Sendable {
    private struct State {
        var outage = false
        var accepted: [FakeProviderRequest] = []
        var rejections: [String] = []
    }

    private let apiKey: String
    private let state = Mutex(State())
    private let server = Mutex<LoopbackHTTPServer?>(nil)

    private init(apiKey: String) { self.apiKey = apiKey }

    static func start(authority: TestCertificateAuthority, apiKey: String) async throws -> FakeExample {
        let fake = FakeExample(apiKey: apiKey)
        let server = try await LoopbackHTTPServer.start(mode: .http2TLS(authority)) { fake.handle($0) }
        fake.server.withLock { $0 = server }
        return fake
    }

    func stop() async throws { try await server.withLock { $0 }?.stop() }
    var url: String { server.withLock { $0?.baseURL ?? "" } }
    var accepted: [FakeProviderRequest] { state.withLock { $0.accepted } }
    var rejections: [String] { state.withLock { $0.rejections } }
    /// Answers 429 with `Retry-After: 60` to everything while on.
    func setOutage(_ on: Bool) { state.withLock { $0.outage = on } }

    private func handle(_ request: RecordedRequest) -> ServerResponse {
        let prefix = "/v1/live-activities/"
        guard request.method == "POST", request.path.hasPrefix(prefix) else { return refuse(404, "no such route") }
        if state.withLock({ $0.outage }) {
            return ServerResponse(status: 429, headers: [("retry-after", "60")], body: Data("slow down".utf8))
        }
        guard request.header("authorization") == "Bearer " + apiKey else { return refuse(401, "wrong API key") }
        let token = request.path.dropFirst(prefix.count)
        guard token.count >= 64, token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return refuse(400, "the token is not lower-case hex") }
        guard let body = try? JSONParser.parse(request.body), let event = body["event"]?.stringValue,
            ["start", "update", "end"].contains(event), body["timestamp"]?.isNumber == true,
            body["content-state"]?.objectValue != nil
        else { return refuse(400, "event, timestamp and an object content-state are required") }
        if event == "start",
            body["attributes-type"]?.stringValue == nil || body["attributes"]?.objectValue == nil
                || body["alert"]?.objectValue == nil
        {
            return refuse(400, "a start needs attributes-type, attributes and an alert")
        }
        state.withLock { $0.accepted.append(FakeProviderRequest(path: request.path, body: request.bodyText)) }
        return ServerResponse(status: 200)
    }

    private func refuse(_ status: Int, _ message: String) -> ServerResponse {
        state.withLock { $0.rejections.append("\(status): \(message)") }
        return .text(message, status: status)
    }
}
