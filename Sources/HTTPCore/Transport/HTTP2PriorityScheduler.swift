import NIOCore

/// One HTTP/2 connection's order of answering: the requests that arrive in one read burst (a viewport's sixty tiles
/// come in one or two) are let through to their streams' handlers by urgency, most urgent first and, within an
/// urgency, in the order they came, once the burst has been read; answers found at once (a cached tile) are then
/// written in that order, and the burst's frames leave in one flush. A request read outside a burst passes at once.
///
/// Urgency is RFC 9218's: 0 (most urgent) to 7, 3 by default, from the request's `Priority` field, else from the
/// RFC 7540 weight its `HEADERS` carried (see ``HTTP2Priority``). Answers that come later (a file read, a render)
/// are written as they come. Used on its connection's event loop only.
package final class HTTP2PriorityScheduler {
    private struct Held {
        let urgency: Int
        let release: () -> Void
    }

    /// Whether a read burst is under way (a request read now can be held).
    package private(set) var isReading = false
    /// The requests held in this burst, in the order they came.
    private var held: [Held] = []

    /// A scheduler for one connection.
    package init() {}

    /// Holds a request of `urgency` (0–7) until the end of the read burst under way (``isReading``), when `release`
    /// runs in its turn. Outside a burst a request is not held: it goes on at once.
    package func hold(urgency: Int, release: @escaping () -> Void) {
        precondition(isReading, "a request is held only during a read burst")
        held.append(Held(urgency: urgency, release: release))
    }

    /// The connection's bytes are being read.
    package func readStarted() { isReading = true }

    /// The read burst ended: what was held is released, most urgent first, in the order they came within an urgency.
    ///
    /// - Complexity: O(n log n) in the requests held.
    package func readEnded() {
        isReading = false
        guard !held.isEmpty else { return }
        let ordered = held.enumerated().sorted { ($0.element.urgency, $0.offset) < ($1.element.urgency, $1.offset) }
        held.removeAll(keepingCapacity: true)
        for request in ordered { request.element.release() }
    }
}

/// In front of NIO's HTTP/2 handler: tells the connection's ``HTTP2PriorityScheduler`` when a read burst starts and
/// ends, so that the requests held during it are released before NIO's handler flushes what they wrote.
package final class HTTP2PriorityReadTracker: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private let scheduler: HTTP2PriorityScheduler

    /// A tracker telling `scheduler`.
    package init(scheduler: HTTP2PriorityScheduler) { self.scheduler = scheduler }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        scheduler.readStarted()
        context.fireChannelRead(data)
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        scheduler.readEnded()
        context.fireChannelReadComplete()
    }
}
