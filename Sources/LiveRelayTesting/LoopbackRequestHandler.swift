import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Reads one request at a time (an HTTP/1.1 connection, or an HTTP/2 stream behind
/// `HTTP2FramePayloadToHTTP1ServerCodec`), records it, and writes what the server's handler answers.
final class LoopbackRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connectionID: Int
    private let recorder: LoopbackRecorder
    private let handler: LoopbackHTTPServer.Handler
    private var head: HTTPRequestHead?
    private var body = Data()
    private var isOpen = true

    init(connectionID: Int, recorder: LoopbackRecorder, handler: @escaping LoopbackHTTPServer.Handler) {
        self.connectionID = connectionID
        self.recorder = recorder
        self.handler = handler
    }

    func channelInactive(context: ChannelHandlerContext) {
        isOpen = false
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        isOpen = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            self.head = nil
            requestComplete(head, context: context)
        }
    }

    private func requestComplete(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let version = head.version.major == 2 ? "HTTP/2" : "HTTP/\(head.version.major).\(head.version.minor)"
        let request = RecordedRequest(
            method: head.method.rawValue, path: head.uri, headers: head.headers.map { ($0.name, $0.value) },
            body: body, httpVersion: version, connectionID: connectionID)
        recorder.record(request)
        let closeAfter = head.version.major == 1 && !head.isKeepAlive
        let promise = context.eventLoop.makePromise(of: ServerResponse.self)
        promise.completeWithTask { [handler] in
            let response = await handler(request)
            if let delay = response.delay { try? await Task.sleep(for: delay) }
            return response
        }
        promise.futureResult.assumeIsolated().whenSuccess { response in
            self.respond(response, closeAfter: closeAfter, context: context)
        }
    }

    private static func streamID(_ context: ChannelHandlerContext) -> HTTP2StreamID? {
        try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
    }

    private func respond(_ response: ServerResponse, closeAfter: Bool, context: ChannelHandlerContext) {
        guard isOpen else { return }
        switch response.fault {
        case .reset:
            // On an HTTP/2 stream channel this sends RST_STREAM; on HTTP/1.1 it closes the connection.
            context.close(promise: nil)
            return
        case .hang:
            return
        case .closeConnection:
            (context.channel.parent ?? context.channel).close(promise: nil)
            return
        case .goAway:
            if let parent = context.channel.parent, let stream = Self.streamID(context) {
                let last = HTTP2StreamID(max(0, Int(stream) - 2))
                parent.writeAndFlush(
                    HTTP2Frame(
                        streamID: .rootStream,
                        payload: .goAway(lastStreamID: last, errorCode: .noError, opaqueData: nil)),
                    promise: nil)
            }
            return
        case .refuse:
            if let parent = context.channel.parent, let stream = Self.streamID(context) {
                parent.writeAndFlush(HTTP2Frame(streamID: stream, payload: .rstStream(.refusedStream)), promise: nil)
            }
            return
        case .lowerStreamLimit(let limit):
            context.channel.parent?.writeAndFlush(
                HTTP2Frame(
                    streamID: .rootStream,
                    payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: limit)]))),
                promise: nil)
        case nil:
            break
        }
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        var body = response.body
        if response.gzip {
            body = StoredGzip.encode(body)
            headers.replaceOrAdd(name: "content-encoding", value: "gzip")
        }
        if response.omitContentLength {
            headers.remove(name: "content-length")
        } else {
            headers.replaceOrAdd(name: "content-length", value: String(body.count))
        }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        if !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if closeAfter {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
