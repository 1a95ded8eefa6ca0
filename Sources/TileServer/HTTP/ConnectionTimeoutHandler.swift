import NIOCore

/// Drops clients that hold a connection without using it: the first bytes in front of the HTTP decoder. Every state
/// of a connection has a deadline:
///
/// - Receiving: a new connection must deliver a complete request — its head and any body a `GET` declares — within
///   the head timeout (a client that connects and sends nothing, trickles header lines or a body, or declares a body
///   it never sends, is dropped, with a 408 if it had sent something).
/// - Idle: after a response, the connection may idle for the idle timeout; its next byte starts a new head timeout.
/// - Sending: whatever the connection is doing, response bytes queued for a client that takes none of them for the
///   send timeout are dropped with the connection (a client that does not read cannot hold memory).
///
/// One timer per connection ticks at most every half of the shorter of the head and send timeouts and never past the
/// deadline, so deadlines hold to within a tick, and moving them (per request) costs no scheduling.
///
/// ``ConnectionHandler``, on the same event loop, calls ``requestStarted()`` and ``becameIdle()`` directly: the handler
/// sits on the inbound path only, so responses pass no extra handler on their way out.
final class ConnectionTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let timeoutResponse = ByteBuffer(
        string: "HTTP/1.1 408 Request Timeout\r\nServer: tiler\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")

    /// Why a connection was dropped.
    enum Timeout: Sendable {
        /// No complete request within the head timeout; `answered` when a 408 was sent first.
        case request(answered: Bool)
        /// Idle past the idle timeout.
        case idle
        /// The client took no response bytes for the send timeout.
        case send
    }

    private let headTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let sendTimeout: TimeAmount
    private let tick: TimeAmount
    private let onTimeout: (Timeout) -> Void
    /// When the connection is dropped unless a request arrives; `nil` while a request is being answered.
    private var deadline: NIODeadline?
    private var isIdle = false
    private var sawBytes = false
    /// Response bytes queued in NIO at the last tick (0: none), and when the client last took some.
    private var lastBuffered = 0
    private var lastSendProgress = NIODeadline.now()
    private var timer: Scheduled<Void>?

    /// Creates a handler; `onTimeout` is told why a connection is dropped, just before it is.
    init(headTimeout: TimeAmount, idleTimeout: TimeAmount, sendTimeout: TimeAmount, onTimeout: @escaping (Timeout) -> Void) {
        precondition(headTimeout.nanoseconds > 0 && idleTimeout.nanoseconds > 0 && sendTimeout.nanoseconds > 0, "timeouts must be positive")
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.tick = .nanoseconds(max(min(headTimeout.nanoseconds, sendTimeout.nanoseconds) / 2, 1_000_000))
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

    /// A complete request arrived: no deadline while it is being answered.
    func requestStarted() {
        deadline = nil
    }

    /// A request head that declares a body arrived: the body must follow within the request's head timeout (counted
    /// from the request's first byte, or from now when the head came with the end of the previous answer).
    func bodyExpected() {
        if deadline == nil || isIdle {
            deadline = .now() + headTimeout
        }
        isIdle = false
        sawBytes = true
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
        let now = NIODeadline.now()
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        // Progress is the queue shrinking (or empty); more queued by the server is not the client reading.
        if buffered == 0 || buffered < lastBuffered { lastSendProgress = now }
        lastBuffered = buffered
        if buffered > 0 && now - lastSendProgress >= sendTimeout {
            // Nothing could overtake the stuck bytes (not even a 408): close at once, dropping what is queued.
            deadline = nil
            onTimeout(.send)
            return context.close(promise: nil)
        }
        guard let deadline else { return schedule(context: context, at: now + tick) }
        guard now >= deadline else { return schedule(context: context, at: deadline) }
        if buffered > 0 {
            // Still sending an answer the client keeps reading: the send watch above decides, not the idle deadline.
            self.deadline = now + idleTimeout
            return schedule(context: context, at: self.deadline!)
        }
        self.deadline = nil
        if isIdle && !sawBytes {
            onTimeout(.idle)
            return context.close(promise: nil)
        }
        let answers = sawBytes
        onTimeout(.request(answered: answers))
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
