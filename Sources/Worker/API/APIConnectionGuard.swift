import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The API's limits on connections, which no authentication protects: at most `maxConnections` open at
/// once (more are closed as they come), each request must arrive whole within `requestTimeout` of the
/// connection's start or of the previous answer (a slowloris header or a body sent a byte a second is cut),
/// and a body larger than `maxBodyBytes` is refused with 413 as soon as it passes the limit, whichever route
/// it is for and however it is framed (`Content-Length` or chunked). With them the API can never hold the
/// descriptors the poller and the senders need, nor read a client's 50 MB.
public struct APIConnectionLimits: Sendable {
    var requestTimeout: TimeAmount
    var maxConnections: Int
    var maxBodyBytes: Int
    /// The connections open now, shared by every connection's guard.
    let open = OpenConnections()

    public init(requestTimeout: Duration, maxConnections: Int, maxBodyBytes: Int = 16 << 10) {
        self.requestTimeout = .nanoseconds(
            requestTimeout.components.seconds * 1_000_000_000 + requestTimeout.components.attoseconds / 1_000_000_000)
        self.maxConnections = maxConnections
        self.maxBodyBytes = maxBodyBytes
    }

    /// The connections open now.
    public var openConnections: Int { open.count.load(ordering: .relaxed) }

    final class OpenConnections: Sendable {
        let count = Atomic<Int>(0)
    }
}

/// One connection's guard: counts it against the cap, cuts it when a request is too slow to arrive, and
/// answers 413 (then closes) when a request's body passes the limit. It sits after HTTP decoding, so it sees
/// a request's head only once the head is complete, and a chunked body as its decoded bytes.
final class APIConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: APIConnectionLimits
    private var counted = false
    private var deadline: Scheduled<Void>?
    /// The body bytes of the request being read.
    private var bodyBytes = 0
    /// An answer's head has gone out and its end not yet.
    private var answering = false
    /// A body passed the limit: the connection is being closed, and nothing more is read or written.
    private var refused = false

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
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            bodyBytes = 0
            if let length = head.headerFields[.contentLength].flatMap(Int.init), length > limits.maxBodyBytes {
                return refuse(context)
            }
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
            if bodyBytes > limits.maxBodyBytes { return refuse(context) }
        case .end:
            // The request is in: its handling is not the client's time.
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !refused else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let part = unwrapOutboundIn(data)
        context.write(data, promise: promise)
        switch part {
        case .head: answering = true
        case .body: break
        case .end:
            answering = false
            // The answer is out: the next request (keep-alive) has the same time to arrive.
            arm(context)
        }
    }

    /// Answers 413 (unless an answer is already under way) and closes the connection: the rest of the body is
    /// never read.
    private func refuse(_ context: ChannelHandlerContext) {
        refused = true
        deadline?.cancel()
        deadline = nil
        guard !answering else {
            context.close(promise: nil)
            return
        }
        let body = ByteBuffer(bytes: #"{"error":"body is larger than \#(limits.maxBodyBytes) bytes"}"#.utf8)
        let head = HTTPResponse(
            status: .contentTooLarge,
            headerFields: [
                .contentType: "application/json", .contentLength: "\(body.readableBytes)", .connection: "close",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func arm(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: limits.requestTimeout) {
            channel.close(promise: nil)
        }
    }
}
