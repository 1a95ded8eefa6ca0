import NIOCore

/// Reads the plain `GET`/`HEAD` requests that make up nearly all tile traffic itself, in front of NIO's HTTP/1
/// decoder, and hands each to the connection's ``ConnectionHandler`` — by a call when it was given the handler, else
/// down the pipeline as a ``SimpleRequestEvent`` (a user inbound event, which NIO's decoder passes through): no
/// general parser, header list or request parts on the hot path.
///
/// The first request that is not in ``SimpleRequest``'s form (another method, a body, an IIIF request, anything odd
/// or malformed) switches the connection to NIO's decoder for good: its bytes and everything after them go on
/// down the pipeline, so NIO parses, answers and refuses them exactly as it would without this handler. The switch
/// happens at a request boundary, after every simple request before it was handed over, so order is kept.
///
/// An incomplete head is kept until the rest arrives (the connection's timeout handler, in front, still times a
/// client that trickles it); one larger than the head limit goes to NIO's decoder, which refuses it.
package final class SimpleRequestDecoder: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private let maxHeadBytes: Int
    /// Whether a request target may be read here; the others (requests answered from their headers) go to NIO's
    /// decoder with everything after them.
    private let takes: (UnsafeRawBufferPointer) -> Bool
    /// The event handed on, one per connection, refilled for each request (no allocation per request).
    private let event = SimpleRequestEvent()
    /// The connection's handler, when the requests are handed to it by a call instead of as events
    /// (``ConnectionHandler/acceptSimple(_:)``).
    private let connection: ConnectionHandler?
    /// The start of a simple head whose end has not arrived.
    private var partial: ByteBuffer?
    /// Every byte now goes to NIO's decoder.
    private var delegating = false

    /// Creates the decoder of one connection; heads longer than `maxHeadBytes` are NIO's to refuse, and so are
    /// requests whose target `takes` refuses (the server passes routing's rule for what is answered from headers).
    /// With `connection`, requests are handed to it directly.
    package init(maxHeadBytes: Int, connection: ConnectionHandler? = nil, takes: @escaping (UnsafeRawBufferPointer) -> Bool = { _ in true }) {
        self.maxHeadBytes = maxHeadBytes
        self.connection = connection
        self.takes = takes
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !delegating else { return context.fireChannelRead(data) }
        var buffer = unwrapInboundIn(data)
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
                if let connection {
                    connection.acceptSimple(request)
                } else {
                    event.request = request
                    context.fireUserInboundEventTriggered(event)
                }
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

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A client that half-closes inside a head: NIO's decoder sees the bytes and the end, and answers as it would.
        if let event = event as? ChannelEvent, event == .inputClosed, let partial, !delegating {
            self.partial = nil
            delegating = true
            context.fireChannelRead(wrapInboundOut(partial))
        }
        context.fireUserInboundEventTriggered(event)
    }
}
