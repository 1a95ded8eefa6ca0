import NIOCore

/// The first handler of a plain connection on a port that also speaks cleartext HTTP/2 with prior knowledge (`h2c`,
/// RFC 9113 §3.3, what proxies such as nginx's grpc_pass or Envoy use towards back ends): it reads until the client's
/// first bytes either are HTTP/2's connection preface or cannot be, has `configure` add the HTTP/2 or the HTTP/1.1
/// handlers after it, passes the bytes on and leaves.
package final class PriorKnowledgeSniffer: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    /// HTTP/2's connection preface.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let configure: (_ http2: Bool, _ channel: any Channel) throws -> Void
    private var bytes: ByteBuffer?

    /// A sniffer calling `configure` (on the event loop, once) with whether the client speaks HTTP/2.
    package init(configure: @escaping (_ http2: Bool, _ channel: any Channel) throws -> Void) {
        self.configure = configure
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if bytes == nil {
            bytes = incoming
        } else {
            bytes!.writeBuffer(&incoming)
        }
        let seen = bytes!.readableBytesView
        let compared = min(seen.count, Self.preface.count)
        let matches = seen.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        // A prefix of the preface: wait for the rest (the head timeout bounds the wait).
        if matches && compared < Self.preface.count { return }
        do {
            try configure(matches, context.channel)
        } catch {
            return context.close(promise: nil)
        }
        let buffered = bytes!
        bytes = nil
        context.fireChannelRead(wrapInboundOut(buffered))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
