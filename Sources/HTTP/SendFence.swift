/// Whether a transport may put a request on the wire again on its own.
///
/// A transport that sends a request a second time without being asked (``HTTP2Lane`` after a lost
/// connection or a server's refusal) asks the fence of the task that made the request first. When it says
/// no (the worker's claims on the push lapsed while it was frozen, so another worker sends it now), the
/// request fails with ``HTTPError/Code/connectionReset`` instead of going out again. The first send is not
/// asked: the caller asks before it makes the request.
///
/// ```swift
/// let response = try await SendFence.$current.withValue(SendFence { claims.held }) {
///     try await transport.send(request)
/// }
/// ```
public struct SendFence: Sendable {
    /// The fence of the requests the current task makes; `nil` lets every resend go.
    @TaskLocal public static var current: SendFence?

    /// Answers whether a request may still go out; it runs on the transport's thread and must not wait.
    public let admits: @Sendable () -> Bool

    /// A fence that asks `admits`.
    public init(_ admits: @escaping @Sendable () -> Bool) {
        self.admits = admits
    }
}
