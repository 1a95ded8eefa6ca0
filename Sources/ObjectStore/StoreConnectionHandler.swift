import AsyncHTTPClient
import Glibc
import NIOCore
import NIOHTTP1

/// The end of one kept-alive HTTP/1.1 connection to a store (``StoreConnectionPool``): it sends one request at a time
/// and gathers its answer into one buffer, sized by `Content-Length` before the first byte of the body arrives.
///
/// Failures are AsyncHTTPClient's errors (`readTimeout`, `deadlineExceeded`, `remoteConnectionClosed`), so that
/// ``HTTPTransport`` classifies and retries them as it does the client's. Lives on its channel's event loop.
final class StoreConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// The request under way.
    private struct Exchange {
        var promise: EventLoopPromise<HTTPClient.Response>
        var host: String
        /// Whether the request was a `HEAD`, whose answer has a `Content-Length` but no body.
        var headOnly: Bool
        var head: HTTPResponseHead?
        var body: ByteBuffer?
        var readTimeout: TimeAmount
        var deadlineTask: Scheduled<Void>?
        var readTask: Scheduled<Void>?
        /// When the last bytes came (or the request went).
        var lastRead = NIODeadline.now()
        /// Whether any byte of the answer came: a kept-alive connection the store closed before any is worth one
        /// more try on a new one (``StoreConnectionPool``).
        var answered = false
    }

    private var exchange: Exchange?
    private var context: ChannelHandlerContext?
    /// Whether the connection can carry another request after this one.
    private(set) var reusable = true
    /// Called once the connection closed, on its loop (the pool forgets an idle connection).
    var onClose: (() -> Void)?

    /// The largest body reserved ahead from `Content-Length` (which a store could make up); a longer one grows as it
    /// arrives.
    static let maxReserved = 4 << 20

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Sends `head` (a body-less request) and completes `promise` with the whole answer, or fails it: no answer within
    /// `deadline`, nothing read for `readTimeout`, the connection closed or broken.
    func send(_ head: HTTPRequestHead, host: String, deadline: NIODeadline, readTimeout: TimeAmount, promise: EventLoopPromise<HTTPClient.Response>) {
        guard let context, exchange == nil, reusable else {
            promise.fail(HTTPClientError.remoteConnectionClosed)
            return
        }
        var exchange = Exchange(promise: promise, host: host, headOnly: head.method == .HEAD, readTimeout: readTimeout)
        exchange.deadlineTask = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            self?.fail(HTTPClientError.deadlineExceeded)
        }
        self.exchange = exchange
        checkReadTimeout(at: .now() + readTimeout)
        if !head.isKeepAlive { reusable = false }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Whether the last exchange failed because the store closed or reset the connection before any byte of its
    /// answer came (see ``Exchange/answered``); not when it timed out, which a new connection would not mend.
    private(set) var closedUnanswered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard exchange != nil else {
            // An answer nobody asked for: the connection is out of step.
            reusable = false
            context.close(promise: nil)
            return
        }
        exchange!.answered = true
        exchange!.lastRead = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            exchange!.head = head
            if !head.isKeepAlive { reusable = false }
            let announced = exchange!.headOnly ? 0 : head.headers.first(name: "content-length").flatMap(Int.init) ?? 0
            exchange!.body = context.channel.allocator.buffer(capacity: min(max(announced, 0), Self.maxReserved))
        case .body(var part):
            exchange!.body!.writeBuffer(&part)
        case .end:
            let finished = exchange!
            exchange = nil
            finished.deadlineTask?.cancel()
            finished.readTask?.cancel()
            guard let head = finished.head else {
                reusable = false
                context.close(promise: nil)
                finished.promise.fail(HTTPClientError.invalidProxyResponse)
                return
            }
            let response = HTTPClient.Response(
                host: finished.host, status: head.status, version: head.version, headers: head.headers, body: finished.body)
            if !reusable { context.close(promise: nil) }
            finished.promise.succeed(response)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        reusable = false
        // A body that had no Content-Length ends with the connection: the decoder sends `.end` first, so an exchange
        // still here was cut short.
        fail(HTTPClientError.remoteConnectionClosed, closed: true)
        onClose?()
        onClose = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        reusable = false
        let reset = (error as? IOError).map { [ECONNRESET, EPIPE].contains($0.errnoCode) } ?? false
        fail(error, closed: reset)
        context.close(promise: nil)
    }

    /// Fails the exchange under way, if any, and closes the connection.
    private func fail(_ error: any Error, closed: Bool = false) {
        guard let failed = exchange else { return }
        exchange = nil
        reusable = false
        closedUnanswered = closed && !failed.answered
        failed.deadlineTask?.cancel()
        failed.readTask?.cancel()
        context?.close(promise: nil)
        failed.promise.fail(error)
    }

    /// Fails the exchange at `deadline` unless bytes came since; then checks again a read timeout after them. One
    /// timer per exchange, not one per read.
    private func checkReadTimeout(at deadline: NIODeadline) {
        guard let context, exchange != nil else { return }
        exchange!.readTask = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self, let exchange = self.exchange else { return }
            let due = exchange.lastRead + exchange.readTimeout
            if due <= .now() {
                self.fail(HTTPClientError.readTimeout)
            } else {
                self.checkReadTimeout(at: due)
            }
        }
    }
}
