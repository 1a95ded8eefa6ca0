import NIOCore

/// Drops clients that hold a connection without sending a request: the first bytes in front of the HTTP decoder.
///
/// - A new connection must deliver a complete request head within the head timeout (a client that connects and
///   sends nothing, or trickles header lines, is dropped, with a 408 if it had sent something).
/// - After a response, the connection may idle for the idle timeout; its next byte starts a new head timeout.
/// - A response still being sent counts as activity as long as the client keeps reading it (a send timeout).
///
/// One timer per connection ticks at most every half head timeout and never past the deadline, so deadlines hold
/// exactly, and moving them (per request) costs no scheduling.
///
/// ``ConnectionHandler``, on the same event loop, calls ``requestStarted()`` and ``becameIdle()`` directly: the handler
/// sits on the inbound path only, so responses pass no extra handler on their way out.
final class ConnectionTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let timeoutResponse = ByteBuffer(
        string: "HTTP/1.1 408 Request Timeout\r\nServer: tiler\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")

    private let headTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let tick: TimeAmount
    private let onTimeout: (_ sentResponse: Bool) -> Void
    /// When the connection is dropped unless a head arrives; `nil` while a request is being answered.
    private var deadline: NIODeadline?
    private var isIdle = false
    private var sawBytes = false
    /// Response bytes still queued in NIO at the last deadline (0: none).
    private var lastBuffered = 0
    private var timer: Scheduled<Void>?

    /// Creates a handler; `onTimeout` is told whether a 408 was sent before closing.
    init(headTimeout: TimeAmount, idleTimeout: TimeAmount, onTimeout: @escaping (_ sentResponse: Bool) -> Void) {
        precondition(headTimeout.nanoseconds > 0 && idleTimeout.nanoseconds > 0, "timeouts must be positive")
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.tick = .nanoseconds(max(headTimeout.nanoseconds / 2, 1_000_000))
        self.onTimeout = onTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil { start(context: context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadline != nil {
            if isIdle {
                isIdle = false
                deadline = .now() + headTimeout
            }
            sawBytes = true
        }
        context.fireChannelRead(data)
    }

    /// A complete request head arrived: no deadline while it is being answered.
    func requestStarted() {
        deadline = nil
    }

    /// Everything received is answered: the connection may idle for the idle timeout until its next byte.
    func becameIdle() {
        deadline = .now() + idleTimeout
        isIdle = true
        sawBytes = false
    }

    private func start(context: ChannelHandlerContext) {
        deadline = .now() + headTimeout
        schedule(context: context, at: deadline!)
    }

    private func schedule(context: ChannelHandlerContext, at time: NIODeadline) {
        let next = min(time, .now() + tick)
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: next) { [self] in
            check(context: context)
        }
    }

    private func check(context: ChannelHandlerContext) {
        timer = nil
        guard context.channel.isActive else { return }
        guard let deadline else { return schedule(context: context, at: .now() + tick) }
        guard NIODeadline.now() >= deadline else { return schedule(context: context, at: deadline) }
        // A client still reading a long response is not idle: while the bytes queued for it keep draining, each
        // deadline is extended; a client that stops reading for a whole timeout is dropped like an idle one.
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        if buffered > 0 && buffered != lastBuffered {
            lastBuffered = buffered
            self.deadline = .now() + idleTimeout
            return schedule(context: context, at: self.deadline!)
        }
        lastBuffered = 0
        self.deadline = nil
        // A 408 could not overtake a response that stopped moving: close at once then.
        let answers = sawBytes && buffered == 0
        onTimeout(answers)
        if answers {
            context.writeAndFlush(wrapOutboundOut(Self.timeoutResponse)).assumeIsolated().whenComplete { result in
                guard case .success = result else { return context.close(promise: nil) }
                LingeringCloseHandler.start(context: context, inputClosed: false)
            }
        } else {
            context.close(promise: nil)
        }
    }
}
