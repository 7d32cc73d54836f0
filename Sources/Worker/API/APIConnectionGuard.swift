import NIOCore
import NIOHTTPTypes
import Synchronization

/// The API's limits on connections, which no authentication protects: at most `maxConnections` open at
/// once (more are closed as they come), and each request must arrive whole within `requestTimeout` of the
/// connection's start or of the previous answer (a slowloris header or a body sent a byte a second is cut).
/// With them the API can never hold the descriptors the poller and the senders need.
public struct APIConnectionLimits: Sendable {
    var requestTimeout: TimeAmount
    var maxConnections: Int
    /// The connections open now, shared by every connection's guard.
    let open = OpenConnections()

    public init(requestTimeout: Duration, maxConnections: Int) {
        self.requestTimeout = .nanoseconds(
            requestTimeout.components.seconds * 1_000_000_000 + requestTimeout.components.attoseconds / 1_000_000_000)
        self.maxConnections = maxConnections
    }

    /// The connections open now.
    public var openConnections: Int { open.count.load(ordering: .relaxed) }

    final class OpenConnections: Sendable {
        let count = Atomic<Int>(0)
    }
}

/// One connection's guard: counts it against the cap and cuts it when a request is too slow to arrive.
/// It sits after HTTP decoding, so it sees a request's head only once the head is complete.
final class APIConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: APIConnectionLimits
    private var counted = false
    private var deadline: Scheduled<Void>?

    init(_ limits: APIConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let open = limits.open.count.add(1, ordering: .relaxed).newValue
        counted = true
        guard open <= limits.maxConnections else {
            context.close(promise: nil)
            return
        }
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if counted {
            limits.open.count.subtract(1, ordering: .relaxed)
            counted = false
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            // The request is in: its handling is not the client's time.
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let isEnd = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        // The answer is out: the next request (keep-alive) has the same time to arrive.
        if isEnd { arm(context) }
    }

    private func arm(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: limits.requestTimeout) {
            channel.close(promise: nil)
        }
    }
}
