import NIOCore
import NIOHTTP2

/// Puts END_STREAM on the last HEADERS or DATA frame of a response instead of a trailing empty DATA frame.
///
/// `HTTP2FramePayloadToHTTP1ServerCodec` ends every response with a separate empty DATA frame; nginx and
/// most servers flag the last frame instead. The difference shows: libcurl 7.88 finishes a transfer once it
/// has `content-length` bytes and, when it has not yet seen END_STREAM, resets the stream it thinks open.
final class HTTP2EndStreamCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// The latest HEADERS or DATA frame without END_STREAM, held back until the next write or flush.
    private var held: (payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        if let held, case .data(let frame) = payload, frame.endStream, frame.data.readableBytes == 0 {
            self.held = nil
            var merged = held.payload
            switch merged {
            case .headers(var headers):
                headers.endStream = true
                merged = .headers(headers)
            case .data(var data):
                data.endStream = true
                merged = .data(data)
            default:
                break
            }
            if let promise, let heldPromise = held.promise { promise.futureResult.cascade(to: heldPromise) }
            context.write(wrapOutboundOut(merged), promise: promise ?? held.promise)
            return
        }
        releaseHeld(context: context)
        switch payload {
        case .headers(let headers) where !headers.endStream:
            held = (payload, promise)
        case .data(let data) where !data.endStream:
            held = (payload, promise)
        default:
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        releaseHeld(context: context)
        context.flush()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseHeld(context: context)
    }

    private func releaseHeld(context: ChannelHandlerContext) {
        guard let held else { return }
        self.held = nil
        context.write(wrapOutboundOut(held.payload), promise: held.promise)
    }
}
