import NIOCore

/// The first handler of a connection. It announces each read from the socket to the connection's state machine
/// (``ConnectionState/bytesArrived(_:now:)``), which says whether the bytes are decoded, dropped (a lingering close)
/// or end the connection; and it reads the plain `GET`/`HEAD` requests that make up nearly all tile traffic itself,
/// in front of NIO's HTTP/1 decoder, handing each to the connection's ``ConnectionHandler`` by a call: no general
/// parser, header list, request parts or pipeline hops on the hot path. Time is the state machine's: this handler
/// keeps none.
///
/// The first request that is not in ``SimpleRequest``'s form (another method, a body, an IIIF request, anything odd
/// or malformed) switches the connection to NIO's decoder for good: its bytes and everything after them go on
/// down the pipeline, so NIO parses, answers and refuses them exactly as it would without this handler. The switch
/// happens at a request boundary, after every simple request before it was handed over, so order is kept.
///
/// An incomplete head is kept until the rest arrives (the connection's timer still times a client that trickles
/// it); one larger than the head limit goes to NIO's decoder, which refuses it.
package final class SimpleRequestDecoder: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private let maxHeadBytes: Int
    /// Whether a request target may be read here; the others (requests answered from their headers) go to NIO's
    /// decoder with everything after them.
    private let takes: (UnsafeRawBufferPointer) -> Bool
    /// The connection's handler, which the requests are handed to (``ConnectionHandler/acceptSimple(_:)``) and whose
    /// state says what becomes of each read.
    private let connection: ConnectionHandler
    // Touched on the event loop only, by this handler's own methods, none of which calls back into another: the
    // runtime's exclusivity check (about 75 instructions an access) would guard nothing.
    /// The start of a simple head whose end has not arrived.
    @exclusivity(unchecked) private var partial: ByteBuffer?
    /// Every byte now goes to NIO's decoder.
    @exclusivity(unchecked) private var delegating = false

    /// Creates the first handler of `connection`'s channel; heads longer than `maxHeadBytes` are NIO's to refuse,
    /// and so are requests whose target `takes` refuses (the server passes routing's rule for what is answered from
    /// headers).
    package init(maxHeadBytes: Int, connection: ConnectionHandler, takes: @escaping (UnsafeRawBufferPointer) -> Bool = { _ in true }) {
        self.maxHeadBytes = maxHeadBytes
        self.connection = connection
        self.takes = takes
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        switch connection.state.bytesArrived(buffer.readableBytes, now: .now()) {
        case .decode: break
        case .discard: return
        case .close: return context.close(promise: nil)
        }
        guard !delegating else { return context.fireChannelRead(data) }
        if var earlier = partial {
            // A head can only end with a line feed: without one the bytes are kept, not scanned again, so a client
            // sending a head a byte at a time costs one scan per line, not one per byte.
            let endsALine = buffer.readableBytesView.contains(UInt8(ascii: "\n"))
            earlier.writeBuffer(&buffer)
            guard endsALine || earlier.readableBytes >= maxHeadBytes else {
                partial = earlier
                return
            }
            partial = nil
            buffer = earlier
        }
        while buffer.readableBytes > 0 {
            let scan = buffer.withUnsafeReadableBytes { SimpleRequest.scan($0, maxHeadBytes: maxHeadBytes, takes: takes) }
            switch scan {
            case .request(let request, let length):
                buffer.moveReaderIndex(forwardBy: length)
                connection.acceptSimple(request)
            case .incomplete:
                partial = buffer
                return
            case .unsupported:
                delegating = true
                context.fireChannelRead(wrapInboundOut(buffer))
                return
            }
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        if connection.state.isLingering {
            // The handlers behind this one hold their reads while closing: a linger asks for more here.
            context.read()
        } else if delegating {
            context.fireChannelReadComplete()
        } else {
            // Nothing went to NIO's decoder: the connection's handler is told directly, saving the event's hops
            // through it (about 900 instructions a request).
            connection.readComplete()
        }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if connection.state.isLingering, let event = event as? ChannelEvent, event == .inputClosed {
            // The client finished sending: the linger is over.
            return context.close(promise: nil)
        }
        // A client that half-closes inside a head: NIO's decoder sees the bytes and the end, and answers as it would.
        if let event = event as? ChannelEvent, event == .inputClosed, let partial, !delegating {
            self.partial = nil
            delegating = true
            context.fireChannelRead(wrapInboundOut(partial))
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if connection.state.isLingering { return context.close(promise: nil) }
        context.fireErrorCaught(error)
    }
}
