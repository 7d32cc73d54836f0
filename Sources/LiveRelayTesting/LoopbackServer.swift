/// A loopback server a test starts and must stop (the fakes of the providers, the feed server).
public protocol LoopbackServer: Sendable {
    /// Stops listening and closes its connections.
    func stop() async throws
}

extension FakeAPNs: LoopbackServer {}
extension FakeFCM: LoopbackServer {}
extension FakeGetui: LoopbackServer {}
extension FakePushwoosh: LoopbackServer {}
extension FeedServer: LoopbackServer {}

extension LoopbackServer {
    /// Runs `body` with the server, and stops the server whether `body` throws or not.
    public func serving<T>(_ body: (Self) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(self)
        } catch {
            try? await stop()
            throw error
        }
        try await stop()
        return result
    }
}
